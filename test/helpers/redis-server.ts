import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createConnection } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './free-port.js'

/** A real `redis-server` (Debian package) of one test file, on a free port of 127.0.0.1. */
export interface RedisServer {
  readonly url: string
  readonly port: number
  /** Stops it (SIGTERM) and waits; with `persistence`, what it wrote stays for {@link start}. */
  stop(): Promise<void>
  /** Starts it again on the same port (after {@link stop}). */
  start(): Promise<void>
  /** Stops it and removes its directory. */
  close(): Promise<void>
}

/**
 * Starts redis-server on a free port, without persistence unless `persistence` asks for an
 * append-only file (`appendfsync always`). Each test file gets its own server: no test sees
 * another's keys, and no mock stands in for Redis.
 *
 * @example
 * const redis = await startRedisServer()
 * afterAll(() => redis.close())
 */
export async function startRedisServer(options: { persistence?: boolean } = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-redis-'))
  const port = await freePort()
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--protected-mode', 'yes', '--loglevel', 'warning']
  args.push(...(options.persistence === true ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']))
  let child: ChildProcess | undefined
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      if (child !== undefined) return
      const started = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] })
      let stderr = ''
      started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      child = started
      started.once('exit', () => {
        if (child === started) child = undefined
      })
      await untilListening(port, started, () => stderr)
    },
    async stop() {
      const running = child
      if (running === undefined) return
      child = undefined
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve())
        running.kill('SIGTERM')
      })
    },
    async close() {
      await server.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
  await server.start()
  return server
}

async function untilListening(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}): ${stderr()}`)
    if (await answersPing(port)) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  child.kill('SIGKILL')
  throw new Error(`redis-server did not answer on port ${port} within 10 s: ${stderr()}`)
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    socket.setTimeout(500)
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (data) => {
      socket.destroy()
      resolve(data.toString().startsWith('+PONG'))
    })
    socket.once('error', () => resolve(false))
    socket.once('timeout', () => {
      socket.destroy()
      resolve(false)
    })
  })
}
