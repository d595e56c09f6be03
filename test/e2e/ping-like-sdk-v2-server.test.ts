/**
 * Issue 28 item 3: `ping` is answered as the official SDK v2 server (@modelcontextprotocol/server
 * 2.4, its createMcpHandler in default mode) answers it, checked against that server itself over
 * real HTTP: a ping that names no revision and no session is a liveness check and gets `{}`
 * (we used to refuse it: 400 "Mcp-Session-Id header is required"); a 2026-07-28 ping is -32601,
 * HTTP 404 (the revision removed it); a 2026-07-28 ping without `_meta` is -32602, HTTP 400.
 */
import { createMcpHandler } from '@modelcontextprotocol/server'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error -- a plain ES module fixture, shared with the stdio child
import { createSdkV2Server } from '../fixtures/sdk-v2-server.mjs'
import { listenOnLoopback } from '../helpers/listen.js'
import { closeAll, post, readAnswer, startHandler } from '../transports/streamable-http/server/http-harness.js'

const V = '2026-07-28'
const meta = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'ping-test', version: '1.0.0' },
}

const SHAPES: Array<[string, Record<string, unknown>, Record<string, string>]> = [
  ['a ping naming no revision and no session', { jsonrpc: '2.0', id: 1, method: 'ping' }, {}],
  ['a ping naming 2025-11-25 and no session', { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'MCP-Protocol-Version': '2025-11-25' }],
  ['a 2026-07-28 ping', { jsonrpc: '2.0', id: 3, method: 'ping', params: { _meta: meta } }, { 'MCP-Protocol-Version': V, 'Mcp-Method': 'ping' }],
  ['a 2026-07-28 ping without _meta', { jsonrpc: '2.0', id: 4, method: 'ping' }, { 'MCP-Protocol-Version': V, 'Mcp-Method': 'ping' }],
]

let ours: string
let theirs: string
let closeTheirs: () => Promise<void>

beforeAll(async () => {
  ours = (await startHandler()).url
  const handler = createMcpHandler(createSdkV2Server, {})
  const server = await listenOnLoopback(toNodeHandler(handler) as never)
  theirs = `${server.url}/mcp`
  closeTheirs = async () => {
    await handler.close()
    await server.close()
  }
})

afterAll(async () => {
  await closeAll()
  await closeTheirs?.()
})

/** What a client learns from the answer: the HTTP status and the JSON-RPC outcome. */
async function outcome(url: string, body: Record<string, unknown>, headers: Record<string, string>) {
  const response = await post(url, body, { headers })
  const answer = (await readAnswer(response))[0] as { result?: unknown; error?: { code: number } }
  return { status: response.status, outcome: answer.error === undefined ? { result: answer.result } : { error: answer.error.code } }
}

describe('ping on /mcp, ours as the SDK v2 server', () => {
  it.each(SHAPES)('%s', async (_name, body, headers) => {
    const [our, their] = await Promise.all([outcome(ours, body, headers), outcome(theirs, body, headers)])
    expect(our).toEqual(their)
  })

  it('answers a sessionless ping naming no revision with an empty result', async () => {
    expect(await outcome(ours, { jsonrpc: '2.0', id: 5, method: 'ping' }, {})).toEqual({ status: 200, outcome: { result: {} } })
  })

  it('still asks for a session for anything else that names none', async () => {
    const response = await post(ours, { jsonrpc: '2.0', id: 6, method: 'tools/list' })
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('Mcp-Session-Id header is required')
  })
})
