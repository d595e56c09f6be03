import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createConnection } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './free-port.js'

/** Debian's haproxy (`apt-get install haproxy`; `.ci/run` installs it); /usr/sbin is not always on PATH. */
const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((path) => existsSync(path)) ?? 'haproxy'

/**
 * The health checks of the test's HAProxy: docs/deployment.md's, faster. A node's drain delay must
 * cover `interMs × fall` (plus a margin) for the proxy to take it out before it closes.
 */
export const HAPROXY_CHECK = { interMs: 500, fall: 2, rise: 1 } as const

/** A real HAProxy of one test file, round robin over `backends`, on a free port of 127.0.0.1. */
export interface Haproxy {
  readonly port: number
  /** http://localhost:<port>: the public origin the nodes share. */
  readonly origin: string
  close(): Promise<void>
}

/**
 * Starts HAProxy in the foreground with the configuration docs/deployment.md recommends, minus TLS
 * (production terminates TLS here; tests speak plain HTTP on loopback): round robin, health checks
 * on /healthz every 500 ms (HAPROXY_CHECK), SSE-friendly tunnel timeout, X-Forwarded-For/Proto/Host overwritten,
 * retries with redispatch, and `X-Served-By: <server name>` on every answer so a test sees which
 * node served it. Backends are named n0, n1, … in order.
 */
export async function startHaproxy(backends: readonly number[], options: { port?: number } = {}): Promise<Haproxy> {
  const port = options.port ?? (await freePort())
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-haproxy-'))
  const config = join(dir, 'haproxy.cfg')
  await writeFile(
    config,
    `global
    maxconn 2000

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
    # a check may wait for an answer longer than 'inter' (its default): on a loaded machine a
    # test's event loop may stall a second, and two such stalls must not take every node out
    # (a closed or draining node still fails its check at once)
    timeout check 3s
    retries 2
    option redispatch

frontend mcp
    bind 127.0.0.1:${port}
    http-request set-header X-Forwarded-Proto http
    http-request set-header X-Forwarded-Host %[req.hdr(host)]
    option forwardfor
    http-response set-header X-Served-By %s
    default_backend nodes

backend nodes
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
    default-server inter ${HAPROXY_CHECK.interMs}ms fall ${HAPROXY_CHECK.fall} rise ${HAPROXY_CHECK.rise}
${backends.map((backend, i) => `    server n${i} 127.0.0.1:${backend} check`).join('\n')}
`,
  )
  const child = spawn(HAPROXY, ['-f', config, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  await untilListening(port, child, () => output)
  return {
    port,
    origin: `http://localhost:${port}`,
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve())
          child.kill('SIGTERM')
        })
      }
      await rm(dir, { recursive: true, force: true })
    },
  }
}

async function untilListening(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${output()}`)
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  child.kill('SIGKILL')
  throw new Error(`haproxy did not listen on ${port} within 10 s: ${output()}`)
}
