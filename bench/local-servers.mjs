// Helper processes the benchmarks start beside the server under test (redis-server, HAProxy):
// started pinned, waited for until their port answers, killed and their temp dirs removed through
// the `cleanups` list the benchmark runs at its end (or on interrupt).
import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pinned, track } from './harness.mjs'

const START_TIMEOUT_MS = 10_000

/** A check that resolves true once something accepts TCP connections on 127.0.0.1:`port`. */
export const listening = (port) => () =>
  new Promise((resolve) => {
    const socket = new Socket()
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
    socket.connect(port, '127.0.0.1')
  })

/** A child on `core`, resolved once `ready()` says it listens; killed by `cleanups`. */
export async function startChild(cleanups, core, command, args, ready) {
  const child = track(spawn(...pinned(core, command, args), { stdio: ['ignore', 'ignore', 'pipe'] }))
  cleanups.push(async () => child.kill('SIGKILL'))
  const deadline = Date.now() + START_TIMEOUT_MS
  while (!(await ready())) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${command} did not start`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return child
}

/** Whether Debian's redis-server (and redis-cli) can be run here. */
export const hasRedis = () => !spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error

/**
 * A redis-server on `port` of 127.0.0.1 without persistence (a benchmark measures the path, not the
 * disk), pinned to `core` (wrk's). `empty()` flushes every key, so no setup inherits another's records.
 */
export async function startRedis(cleanups, port, core = '0') {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-bench-redis-'))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  const child = await startChild(cleanups, core, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], listening(port))
  return {
    child,
    url: `redis://127.0.0.1:${port}`,
    empty() {
      const flushed = spawnSync('redis-cli', ['-p', String(port), 'FLUSHALL'], { encoding: 'utf8' })
      if (flushed.status !== 0 || !flushed.stdout.includes('OK')) throw new Error(`redis-cli FLUSHALL failed: ${flushed.stderr || flushed.stdout}`)
    },
  }
}
