/**
 * Issue 31, item 5: failure stays contained. A child that exits at start, dies mid-call, writes
 * what is not JSON-RPC, never answers initialize or floods its output gives the affected session a
 * clear error and is started again (after a back-off) on the next request; the gateway never
 * falls over. A drain ends every child.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'
import { TEST_SERVER } from '../helpers/paths.js'

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }
const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a child that fails', () => {
  let stack: GatewayStack
  beforeAll(async () => {
    stack = await startGatewayStack({ children: { restartDelayMs: 150, maxRestartDelayMs: 150, initializeTimeoutMs: 800 } })
  })
  afterAll(() => stack.stop())

  it('dies mid-call: the call gets a clear error, and the next request on the session restarts it', async () => {
    const client = await stack.connect(await stack.token('dies'))
    await expect(client.callTool({ name: 'die', arguments: {} })).rejects.toThrow(/the MCP server process exited with code 7/)
    // during the back-off the session is told when to come back
    await expect(client.callTool({ name: 'echo', arguments: { message: 'too soon' } })).rejects.toThrow(/starts it again in \d+ s/)
    await sleep(200)
    const result = await client.callTool({ name: 'echo', arguments: { message: 'back' } })
    expect(text(result)).toBe('echo: back')
    expect(stack.log.some((line) => /stdio-test-server: dying mid-call/.test(line))).toBe(true)
    await client.close()
  })

  it('writes lines that are not JSON-RPC: they are logged and ignored, the answer still arrives', async () => {
    const client = await stack.connect(await stack.token('noisy'))
    expect(text(await client.callTool({ name: 'noise', arguments: {} }))).toBe('after the noise')
    expect(stack.log.some((line) => /wrote something that is not JSON-RPC on stdout/.test(line))).toBe(true)
    await client.close()
  })

  it('floods its output without a newline: it is stopped, the call gets a clear error, the next request starts it again', async () => {
    const client = await stack.connect(await stack.token('floods'))
    await expect(client.callTool({ name: 'flood', arguments: {} })).rejects.toThrow(/wrote a line longer than the gateway reads/)
    await sleep(200)
    expect(text(await client.callTool({ name: 'echo', arguments: { message: 'after' } }))).toBe('echo: after')
    await client.close()
  }, 30_000)
})

describe('a child that exits at start', () => {
  let stack: GatewayStack
  beforeAll(async () => {
    stack = await startGatewayStack({ child: { command: process.execPath, args: [TEST_SERVER, 'exit-at-start'] }, children: { restartDelayMs: 300, maxRestartDelayMs: 300 } })
  })
  afterAll(() => stack.stop())

  it('refuses the initialize with why, then the next one with Retry-After until the back-off is over', async () => {
    const token = await stack.token()
    const first = await stack.post(token, INITIALIZE)
    expect(first.status).toBe(200)
    expect((first.message.error as { message: string }).message).toMatch(/the MCP server process exited with code 3/)
    const soon = await stack.post(token, INITIALIZE)
    expect(soon.status).toBe(503)
    expect(Number(soon.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    await sleep(350)
    // tried again: still failing, still a clear answer, and the gateway still answers
    const later = await stack.post(token, INITIALIZE)
    expect((later.message.error as { message: string }).message).toMatch(/exited with code 3/)
    expect((await fetch(`${stack.origin}/.well-known/oauth-protected-resource/mcp`)).status).toBe(200)
  })
})

describe('a child that never answers initialize', () => {
  let stack: GatewayStack
  beforeAll(async () => {
    stack = await startGatewayStack({ child: { command: process.execPath, args: [TEST_SERVER, 'never-initialize'] }, children: { initializeTimeoutMs: 300 } })
  })
  afterAll(() => stack.stop())

  it('is stopped after the initialize timeout, and the client told so', async () => {
    const answer = await stack.post(await stack.token(), INITIALIZE)
    expect((answer.message.error as { message: string }).message).toMatch(/did not answer initialize within 300 ms and was stopped/)
    expect(stack.job.host.pool.size).toBeLessThanOrEqual(1)
  })
})

describe('a drain', () => {
  it('ends every child: stdin closed, then SIGTERM, then SIGKILL', async () => {
    const stack = await startGatewayStack()
    const client = await stack.connect(await stack.token())
    const { pid } = JSON.parse(text(await client.callTool({ name: 'whoami', arguments: {} })))
    await stack.stop()
    expect(() => process.kill(pid, 0)).toThrow()
  })
})
