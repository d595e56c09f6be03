/**
 * Issue 28 item 3: a request for a method 2026-07-28 removed (`ping`, which the Python SDK 2.3
 * still sends) is refused the way the official SDK v2 server refuses it, -32601 (HTTP 404), and
 * the refusal says the revision removed it and what to send instead. Over real HTTP on /mcp and
 * over stdio (the demo server of the built CLI), where the pipe carries both eras.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StdioClientTransport } from '../../../src/transports/stdio/index.js'
import { CLI_PATH } from '../../helpers/paths.js'
import { closeAll, post, readAnswer, startHandler, type Message } from '../../transports/streamable-http/server/http-harness.js'

const V = '2026-07-28'
const meta = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'python-sdk-like', version: '2.3.0' },
}
const statelessRequest = (id: number, method: string) => ({ jsonrpc: '2.0', id, method, params: { _meta: meta } })

const REMOVED: Array<[string, RegExp]> = [
  ['ping', /ping is not part of protocol version 2026-07-28.*server\/discover/],
  ['logging/setLevel', /logging\/setLevel is not part of protocol version 2026-07-28.*io\.modelcontextprotocol\/logLevel/],
  ['resources/subscribe', /resources\/subscribe is not part of protocol version 2026-07-28.*subscriptions\/listen/],
]

describe('a 2026-07-28 request for a method the revision removed, over HTTP', () => {
  let url: string
  beforeAll(async () => {
    url = (await startHandler()).url
  })
  afterAll(closeAll)

  it.each(REMOVED)('answers %s with 404 and -32601 saying what to send instead', async (method, says) => {
    const response = await post(url, statelessRequest(7, method), { headers: { 'MCP-Protocol-Version': V, 'Mcp-Method': method } })
    const answer = (await readAnswer(response)).find((m) => m.id === 7) as Message
    expect(response.status).toBe(404)
    expect(answer.error.code).toBe(-32601)
    expect(answer.error.message).toMatch(says)
  })

  it('still answers a method the revision never had with a plain -32601', async () => {
    const response = await post(url, statelessRequest(8, 'nope/nothing'), { headers: { 'MCP-Protocol-Version': V, 'Mcp-Method': 'nope/nothing' } })
    const answer = (await readAnswer(response)).find((m) => m.id === 8) as Message
    expect([response.status, answer.error.code, answer.error.message]).toEqual([404, -32601, 'Method not found: nope/nothing'])
  })
})

describe('over stdio (the demo server of the CLI)', () => {
  let transport: StdioClientTransport
  const answers = new Map<unknown, (message: Record<string, unknown>) => void>()
  const ask = (message: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve) => {
      answers.set(message.id, resolve)
      void transport.send(message as never)
    })
  beforeAll(async () => {
    transport = new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'demo-server', '--stdio'], stderr: 'ignore' })
    transport.onmessage = (message) => answers.get((message as { id?: unknown }).id)?.(message as Record<string, unknown>)
    await transport.start()
  })
  afterAll(() => transport.close())

  it('refuses a 2026-07-28 ping with -32601 naming server/discover, and serves server/discover', async () => {
    const ping = (await ask(statelessRequest(1, 'ping'))) as { error: { code: number; message: string } }
    expect(ping.error.code).toBe(-32601)
    expect(ping.error.message).toMatch(/ping is not part of protocol version 2026-07-28.*server\/discover/)
    const discover = (await ask(statelessRequest(2, 'server/discover'))) as { result: { supportedVersions: string[] } }
    expect(discover.result.supportedVersions).toContain(V)
  })

  it('answers a handshake-era ping (no _meta revision) with an empty result, as before', async () => {
    expect(await ask({ jsonrpc: '2.0', id: 3, method: 'ping' })).toMatchObject({ id: 3, result: {} })
  })
})
