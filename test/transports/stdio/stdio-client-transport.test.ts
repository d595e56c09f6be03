import { afterEach, describe, expect, it } from 'vitest'
import { childEnvironment, StdioClientTransport, StdioError } from '../../../src/transports/stdio/index.js'
import { isRunning, nodeFixture, type Recorded } from './stdio-harness.js'

const started: Recorded[] = []
async function start(...args: Parameters<typeof nodeFixture>): Promise<Recorded> {
  const recorded = nodeFixture(...args)
  started.push(recorded)
  await recorded.transport.start()
  return recorded
}

afterEach(async () => {
  // never leave a child behind, whatever a test did
  await Promise.all(started.splice(0).map((r) => r.transport.close()))
})

describe('StdioClientTransport', () => {
  it('spawns the server, exposes its pid, and round-trips messages', async () => {
    const server = await start('echo-server.mjs')
    const pid = server.transport.pid
    expect(pid).toBeGreaterThan(0)
    expect(isRunning(pid!)).toBe(true)
    await server.transport.send({ jsonrpc: '2.0', id: 1, method: 'echo', params: { text: 'héllo 😀', nested: { n: [1, 2] } } })
    await server.transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' })
    expect(await server.next((m) => m.id === 1)).toEqual({ jsonrpc: '2.0', id: 1, result: { text: 'héllo 😀', nested: { n: [1, 2] } } })
    expect(await server.next((m) => m.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} })
    expect(server.errors).toEqual([])
  })

  it('carries a large message intact through the pipes', async () => {
    const server = await start('echo-server.mjs')
    const big = 'x'.repeat(1_000_000)
    await server.transport.send({ jsonrpc: '2.0', id: 1, method: 'echo', params: { big } })
    const answer = await server.next((m) => m.id === 1)
    expect((answer.result as { big: string }).big).toBe(big)
  })

  it('gives the child only the allow-listed variables plus the ones passed in', async () => {
    process.env.MCP_AUTH_STDIO_TEST_SECRET = 'do-not-leak'
    process.env.MCP_AUTH_STDIO_TEST_FN = '() { echo pwned; }'
    try {
      const server = await start('echo-server.mjs', [], {
        env: { PASSED_IN: 'yes' },
        inheritedEnv: ['PATH', 'MCP_AUTH_STDIO_TEST_FN'],
      })
      await server.transport.send({ jsonrpc: '2.0', id: 1, method: 'env' })
      const { env } = (await server.next((m) => m.id === 1)).result as { env: Record<string, string> }
      expect(env.MCP_AUTH_STDIO_TEST_SECRET).toBeUndefined()
      expect(env.MCP_AUTH_STDIO_TEST_FN).toBeUndefined()
      expect(env.PASSED_IN).toBe('yes')
      expect(env.PATH).toBe(process.env.PATH)
      // the platform may add a few of its own (macOS adds __CF_USER_TEXT_ENCODING), nothing of ours
      const ours = Object.keys(env).filter((name) => name in process.env && name !== 'PATH')
      expect(ours).toEqual([])
    } finally {
      delete process.env.MCP_AUTH_STDIO_TEST_SECRET
      delete process.env.MCP_AUTH_STDIO_TEST_FN
    }
  })

  it("exposes the child's stderr with stderr: 'pipe', even before start", async () => {
    const server = nodeFixture('echo-server.mjs', [], { stderr: 'pipe' })
    started.push(server)
    let captured = ''
    server.transport.stderr!.on('data', (chunk: Buffer) => (captured += chunk.toString('utf8')))
    await server.transport.start()
    await server.transport.send({ jsonrpc: '2.0', id: 1, method: 'log', params: { text: 'a log line for stderr' } })
    await server.next((m) => m.id === 1)
    await server.transport.close()
    expect(captured).toContain('a log line for stderr')
    expect(server.messages).toHaveLength(1)
  })

  it("has no stderr stream unless stderr is 'pipe'", () => {
    expect(new StdioClientTransport({ command: process.execPath }).stderr).toBeNull()
    expect(new StdioClientTransport({ command: process.execPath, stderr: 'ignore' }).stderr).toBeNull()
  })

  it('reports a non-JSON line and an oversized line from the server and still delivers what follows', async () => {
    const server = await start('noisy-server.mjs', ['5000'], { maxLineBytes: 1000 })
    await server.next((m) => m.method === 'after')
    expect(server.messages).toEqual([{ jsonrpc: '2.0', method: 'after' }])
    expect(server.errors.map((e) => (e as { code?: unknown }).code)).toEqual([-32700, 'line_too_long'])
  })

  it('fires onclose once when the server exits by itself, and refuses to send afterwards', async () => {
    const server = await start('echo-server.mjs')
    const closed = new Promise<void>((resolve) => {
      const previous = server.transport.onclose
      server.transport.onclose = () => {
        previous?.()
        resolve()
      }
    })
    await server.transport.send({ jsonrpc: '2.0', id: 1, method: 'exit', params: { code: 3 } })
    await closed
    expect(server.transport.exitStatus).toEqual({ code: 3, signal: null })
    await expect(server.transport.send({ jsonrpc: '2.0', method: 'late' })).rejects.toMatchObject({ code: 'not_connected' })
    await server.transport.close()
    expect(server.closes).toBe(1)
  })

  it('refuses to send before start', async () => {
    const transport = new StdioClientTransport({ command: process.execPath })
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toBeInstanceOf(StdioError)
  })

  it('rejects start() clearly when the command does not exist', async () => {
    const transport = new StdioClientTransport({ command: 'mcp-auth-no-such-command-xyz' })
    let closes = 0
    transport.onclose = () => closes++
    const error = await transport.start().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(StdioError)
    expect(error).toMatchObject({ code: 'spawn_failed', cause: { code: 'ENOENT' } })
    expect((error as Error).message).toContain("'mcp-auth-no-such-command-xyz'")
    expect(transport.pid).toBeUndefined()
    await transport.close()
    expect(closes).toBe(0)
  })

  it('rejects start() when the working directory does not exist', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, cwd: '/no/such/dir/mcp-auth' })
    await expect(transport.start()).rejects.toMatchObject({ code: 'spawn_failed', message: expect.stringContaining('/no/such/dir/mcp-auth') })
  })
})

describe('StdioClientTransport.close', () => {
  it('lets a server that exits on stdin close go without any signal', async () => {
    const server = await start('echo-server.mjs', [], { closeGraceMs: 10_000, killGraceMs: 10_000 })
    const pid = server.transport.pid!
    const began = Date.now()
    await server.transport.close()
    expect(Date.now() - began).toBeLessThan(5_000)
    expect(server.transport.exitStatus).toEqual({ code: 0, signal: null })
    expect(isRunning(pid)).toBe(false)
    expect(server.closes).toBe(1)
  })

  it('sends SIGTERM to a server that ignores the end of its stdin', async () => {
    const server = await start('ignores-stdin-close.mjs', [], { closeGraceMs: 150, killGraceMs: 10_000 })
    await server.next((m) => m.method === 'ready')
    const pid = server.transport.pid!
    const began = Date.now()
    await server.transport.close()
    expect(Date.now() - began).toBeGreaterThanOrEqual(140)
    expect(Date.now() - began).toBeLessThan(5_000)
    expect(server.transport.exitStatus).toEqual({ code: null, signal: 'SIGTERM' })
    expect(isRunning(pid)).toBe(false)
    expect(server.closes).toBe(1)
  })

  it('sends SIGKILL to a server that also ignores SIGTERM', async () => {
    const server = await start('ignores-sigterm.mjs', [], { closeGraceMs: 100, killGraceMs: 150 })
    await server.next((m) => m.method === 'ready')
    const pid = server.transport.pid!
    const began = Date.now()
    await server.transport.close()
    expect(Date.now() - began).toBeGreaterThanOrEqual(240)
    expect(server.transport.exitStatus).toEqual({ code: null, signal: 'SIGKILL' })
    expect(isRunning(pid)).toBe(false)
    expect(server.closes).toBe(1)
  })

  it('returns the same shutdown to concurrent callers and fires onclose once', async () => {
    const server = await start('ignores-stdin-close.mjs', [], { closeGraceMs: 100, killGraceMs: 10_000 })
    await server.next((m) => m.method === 'ready')
    await Promise.all([server.transport.close(), server.transport.close(), server.transport.close()])
    expect(server.closes).toBe(1)
    expect(server.transport.exitStatus?.signal).toBe('SIGTERM')
  })
})

describe('childEnvironment', () => {
  it('copies only the named variables, skips shell functions, and lets passed values win', () => {
    const source = { HOME: '/home/a', PATH: '/bin', SECRET: 's', BASH_FUNC: '() { :; }', USER: 'a' }
    expect(childEnvironment({ USER: 'b', EXTRA: '1' }, ['HOME', 'PATH', 'BASH_FUNC', 'USER', 'MISSING'], source)).toEqual({
      HOME: '/home/a',
      PATH: '/bin',
      USER: 'b',
      EXTRA: '1',
    })
  })
})

describe('StdioClientTransport start and close racing', () => {
  it('stops a child that finishes spawning after close() was called', async () => {
    const server = nodeFixture('ignores-stdin-close.mjs', [], { closeGraceMs: 100, killGraceMs: 1_000 })
    const starting = server.transport.start()
    const closing = server.transport.close()
    await starting
    const pid = server.transport.pid!
    await closing
    expect(isRunning(pid)).toBe(false)
    expect(server.transport.exitStatus).not.toBeUndefined()
    expect(server.closes).toBe(1)
  })
})
