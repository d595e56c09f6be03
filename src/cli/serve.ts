import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { defaults } from '../config/defaults.js'

/**
 * An HTTP server with the CLI's timeouts: a client gets `headersTimeoutMs` to send its headers
 * and `requestTimeoutMs` to send its whole request (body included); a slow or stalled upload is
 * then cut off instead of holding a connection for minutes. Responses (SSE streams) may last as
 * long as they need: these clocks stop once the request is in.
 */
export function createCliServer(handler: RequestListener): Server {
  const c = defaults.cli
  const server = createServer({ connectionsCheckingInterval: c.connectionsCheckingIntervalMs, headersTimeout: c.headersTimeoutMs, requestTimeout: c.requestTimeoutMs }, handler)
  return server
}

/** The URL a server listening on host:port is reached at (IPv6 literals bracketed). */
export function listeningUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}

/**
 * A free port on `host` for `--port 0`, chosen before anything is built: the public URL names the
 * port, and the server only listens once it can answer.
 */
export async function freePort(host: string): Promise<number> {
  const probe = createServer()
  await listenOn(probe, 0, host)
  const { port } = probe.address() as AddressInfo
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

/**
 * Listens with `server` on host:port, or throws a message that says what to do (a busy port).
 * Run `cleanup` first when it fails.
 */
export async function listenOrExplain(
  server: Server,
  port: number,
  host: string,
  cleanup: () => Promise<void> = async () => {},
  how = 'choose another with --port',
): Promise<void> {
  try {
    await listenOn(server, port, host)
  } catch (error) {
    await cleanup()
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new Error(`port ${port} on ${host} is already in use (another server, or mcp-auth already running?): ${how}`, { cause: error })
    throw error
  }
}

/** Listens on host:port; rejects (e.g. EADDRINUSE) instead of emitting an unhandled error. */
export function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

/**
 * Listen on host:port and print `listening on <url>` once connections are accepted (scripts and
 * tests wait for that line). Resolves with the server and its URL.
 */
export async function listen(handler: RequestListener, host: string, port: number): Promise<{ server: Server; url: string }> {
  const server = createCliServer(handler)
  await listenOn(server, port, host)
  const address = server.address() as AddressInfo
  const name = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${name}:${address.port}`
  process.stdout.write(`listening on ${url}\n`)
  return { server, url }
}

/**
 * Waits for SIGINT or SIGTERM, then shuts down cleanly: the listeners stop accepting and drop
 * their connections (SSE streams included), then `close` ends what they served.
 */
export async function closeOnSignal(listeners: readonly Server[], close: () => Promise<void>): Promise<void> {
  await untilSignal()
  for (const listener of listeners) listener.closeAllConnections()
  await Promise.all(listeners.map((listener) => new Promise<void>((resolve) => listener.close(() => resolve()))))
  await close()
}

/** Resolve on SIGINT or SIGTERM, so a command can shut down cleanly. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const done = (signal: NodeJS.Signals) => {
      process.off('SIGINT', done)
      process.off('SIGTERM', done)
      resolve(signal)
    }
    process.once('SIGINT', done)
    process.once('SIGTERM', done)
  })
}
