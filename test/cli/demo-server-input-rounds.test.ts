// Issue 27, item 9: `demo-server --redis` processes share the requestState key through Redis, so a
// 2026-07-28 input round one process asked is answered on another.
import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCli, stopChild } from '../helpers/cli-process.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const V = '2026-07-28'
const TOOL = { name: 'test_input_required_result_multi_round', arguments: {} }

let redis: RedisServer
const processes: Array<{ child: ChildProcess; url: string }> = []

beforeAll(async () => {
  redis = await startRedisServer()
  // started together on an empty Redis: they agree on one key all the same
  processes.push(...(await Promise.all([0, 1].map(() => startCli(['demo-server', '--port', '0', '--redis', redis.url, '--json'])))))
}, 30_000)

afterAll(async () => {
  await Promise.all(processes.map(({ child }) => stopChild(child)))
  await redis?.close()
})

let id = 1
async function callTool(url: string, params: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': V, 'Mcp-Method': 'tools/call', 'Mcp-Name': TOOL.name },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: id++,
      method: 'tools/call',
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': V,
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          'io.modelcontextprotocol/clientInfo': { name: 'input-rounds-test', version: '1.0.0' },
        },
      },
    }),
  })
  return (await response.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } }
}

describe('input rounds on two demo-server --redis processes', () => {
  it('answers on the second process a round the first asked', async () => {
    const [a, b] = processes.map(({ url }) => new URL(url).origin)
    const accept = (content: Record<string, unknown>) => ({ action: 'accept', content })
    const first = await callTool(a!, TOOL)
    expect(first.result).toMatchObject({ resultType: 'input_required' })
    const second = await callTool(b!, { ...TOOL, inputResponses: { step1: accept({ name: 'Ada' }) }, requestState: first.result!['requestState'] })
    expect(second.error).toBeUndefined()
    const third = await callTool(a!, { ...TOOL, inputResponses: { step2: accept({ color: 'green' }) }, requestState: second.result!['requestState'] })
    expect(third.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Ada likes green' }] })
  })
})
