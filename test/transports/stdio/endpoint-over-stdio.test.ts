import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { JsonRpcError } from '../../../src/jsonrpc/index.js'
import { Endpoint } from '../../../src/protocol/endpoint.js'
import { StdioClientTransport } from '../../../src/transports/stdio/index.js'
import { fixture, isRunning } from './stdio-harness.js'

const endpoints: Endpoint[] = []
afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((e) => e.close()))
})

async function connect(): Promise<{ endpoint: Endpoint; transport: StdioClientTransport; errors: Error[] }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [fixture('echo-server.mjs')], stderr: 'ignore' })
  const endpoint = new Endpoint({ requestTimeoutMs: 5_000 })
  const errors: Error[] = []
  endpoint.onerror = (error) => errors.push(error)
  endpoints.push(endpoint)
  await endpoint.connect(transport)
  return { endpoint, transport, errors }
}

describe('Endpoint over a spawned stdio server', () => {
  it('answers ping and echo through a real child process', async () => {
    const { endpoint, errors } = await connect()
    expect(await endpoint.request('ping')).toEqual({})
    const params = { text: 'ünïcödé ✓', list: [1, 'two', { three: 3 }], newline: 'a\nb' }
    expect(await endpoint.request('echo', params)).toEqual(params)
    expect(errors).toEqual([])
  })

  it("rejects with the server's JSON-RPC error for an unknown method", async () => {
    const { endpoint } = await connect()
    const error = await endpoint.request('does/not/exist').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(JsonRpcError)
    expect(error).toMatchObject({ code: -32601 })
  })

  it('delivers notifications from the server to their handler', async () => {
    const { endpoint } = await connect()
    const received = new Promise<unknown>((resolve) => endpoint.setNotificationHandler('echoed', (p) => resolve(p)))
    await endpoint.request('notify', { n: 1 })
    expect(await received).toEqual({ n: 1 })
  })

  it('keeps many concurrent requests apart', async () => {
    const { endpoint } = await connect()
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => endpoint.request('echo', { i })))
    expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => ({ i })))
  })

  it('stops the child and fails pending requests when the endpoint closes', async () => {
    const { endpoint, transport } = await connect()
    const pid = transport.pid!
    let closed = 0
    endpoint.onclose = () => closed++
    await endpoint.close()
    expect(closed).toBe(1)
    expect(isRunning(pid)).toBe(false)
    expect(transport.exitStatus).toEqual({ code: 0, signal: null })
    await expect(endpoint.request('ping')).rejects.toMatchObject({ code: 'not_connected' })
  })

  it('fails a pending request when the server dies', async () => {
    const { endpoint } = await connect()
    const pending = endpoint.request('exit', { code: 1 })
    await expect(pending).rejects.toMatchObject({ code: 'connection_closed' })
  })
})

/**
 * Both halves ours: the fixture runs an Endpoint behind StdioServerTransport on its real stdio,
 * from the built package (npm test builds first).
 */
describe('Endpoint over StdioClientTransport ↔ Endpoint over StdioServerTransport', () => {
  const serverScript = fileURLToPath(new URL('../../fixtures/stdio/endpoint-server.mjs', import.meta.url))

  async function connectToOurs(): Promise<{ endpoint: Endpoint; transport: StdioClientTransport; stderr: () => string }> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [serverScript], stderr: 'pipe' })
    let stderr = ''
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const endpoint = new Endpoint({ requestTimeoutMs: 10_000 })
    endpoints.push(endpoint)
    await endpoint.connect(transport)
    return { endpoint, transport, stderr: () => stderr }
  }

  it('round-trips requests both ways over real process stdio', async () => {
    const { endpoint } = await connectToOurs()
    endpoint.setRequestHandler('client/echo', (params) => ({ back: params }))
    expect(await endpoint.request('ping')).toEqual({})
    expect(await endpoint.request('echo', { text: 'a\nb ✓' })).toEqual({ text: 'a\nb ✓' })
    expect(await endpoint.request('shout', { n: 7 })).toEqual({ heard: { back: { n: 7 } } })
  })

  it('shuts the server down by closing its stdin, no signal needed, and keeps its logs on stderr', async () => {
    const { endpoint, transport, stderr } = await connectToOurs()
    await endpoint.request('ping')
    await endpoint.close()
    expect(transport.exitStatus).toEqual({ code: 0, signal: null })
    expect(stderr()).toContain('endpoint-server: ready')
  })

  it('puts nothing but JSON-RPC lines on its stdout, whatever it is fed', async () => {
    const child = spawn(process.execPath, [serverScript], { stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.stderr.resume()
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    child.stdin.end(
      [
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
        'not json at all',
        '{"jsonrpc":"2.0","id":2,"method":"echo","params":{"x":1}}\r',
        '',
        '{"jsonrpc":"2.0","id":3,"method":5}',
        '{"jsonrpc":"2.0","id":4,"method":"missing"}',
        '',
      ].join('\n'),
    )
    expect(await exited).toBe(0)
    expect(stdout.endsWith('\n')).toBe(true)
    const lines = stdout.slice(0, -1).split('\n')
    const messages = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    for (const message of messages) expect(message).toMatchObject({ jsonrpc: '2.0' })
    expect(messages).toContainEqual({ jsonrpc: '2.0', id: 1, result: {} })
    expect(messages).toContainEqual({ jsonrpc: '2.0', id: 2, result: { x: 1 } })
    expect(messages).toContainEqual({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32700 }) })
    expect(messages).toContainEqual({ jsonrpc: '2.0', id: 3, error: expect.objectContaining({ code: -32600 }) })
    expect(messages).toContainEqual({ jsonrpc: '2.0', id: 4, error: expect.objectContaining({ code: -32601 }) })
    expect(messages).toHaveLength(5)
  })
})
