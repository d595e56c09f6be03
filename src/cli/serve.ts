import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { defaults } from '../config/defaults.js'
import { isOpenEndedStream } from '../transports/http/open-ended-stream.js'

/** What {@link createCliServer} may add in front of the handler. */
export interface CliServerOptions {
  /**
   * Answer `GET /healthz` (defaults.cli.healthPath) with 200 while this returns true, 503
   * otherwise (and while draining), before the handler sees the request.
   */
  health?: () => Promise<boolean>
}

/** The responses a server has open, for a graceful drain; and how far the drain is. */
interface ServerState {
  open: Set<ServerResponse>
  /** /healthz answers 503 "draining" (the node still serves everything else). */
  draining: boolean
  /** Every response says `Connection: close`: the node is about to close its connections. */
  closing: boolean
  /** When /healthz was last asked (ms since the epoch; 0 for never): is a balancer following? */
  lastHealthCheck: number
}
const states = new WeakMap<Server, ServerState>()

/**
 * An HTTP server with the CLI's timeouts: a client gets `headersTimeoutMs` to send its headers
 * and `requestTimeoutMs` to send its whole request (body included); a slow or stalled upload is
 * then cut off instead of holding a connection for minutes. Responses (SSE streams) may last as
 * long as they need: these clocks stop once the request is in. It keeps count of its open
 * responses, so {@link closeOnSignal} can let requests in flight finish.
 */
export function createCliServer(handler: RequestListener, options: CliServerOptions = {}): Server {
  const c = defaults.cli
  const state: ServerState = { open: new Set(), draining: false, closing: false, lastHealthCheck: 0 }
  // one listener for every response ('close' comes once)
  const forget = function forget(this: ServerResponse): void {
    state.open.delete(this)
  }
  const { health } = options
  const server = createServer(
    { connectionsCheckingInterval: c.connectionsCheckingIntervalMs, headersTimeout: c.headersTimeoutMs, requestTimeout: c.requestTimeoutMs },
    (req, res) => {
      state.open.add(res)
      res.on('close', forget)
      if (health !== undefined && req.method === 'GET' && (req.url === c.healthPath || req.url?.startsWith(`${c.healthPath}?`))) {
        state.lastHealthCheck = Date.now()
        void answerHealth(res, state, health)
        return
      }
      // once the drain closes connections, a request on a kept-alive one is the last one on it
      if (state.closing) res.setHeader('connection', 'close')
      handler(req, res)
    },
  )
  // longer than a balancer keeps idle connections for reuse: the node never closes one it is about to use
  server.keepAliveTimeout = c.keepAliveTimeoutMs
  states.set(server, state)
  return server
}

async function answerHealth(res: ServerResponse, state: ServerState, health: () => Promise<boolean>): Promise<void> {
  const status = state.draining ? 'draining' : (await health().catch(() => false)) ? 'ok' : 'unavailable'
  const body = JSON.stringify({ status })
  res.writeHead(status === 'ok' ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

/** How {@link drain} goes; every field has a default in `defaults.cli`. */
export interface DrainOptions {
  /**
   * How long (ms) the server keeps serving with /healthz at 503 before it closes anything, so a
   * load balancer's checks take it out first (defaults.cli.drainDelayMs). Skipped when no health
   * check came in that long: nothing follows this server.
   */
  delayMs?: number
  /** How long (ms) requests in flight get to finish (defaults.cli.drainTimeoutMs). */
  timeoutMs?: number
  /** The SSE `retry:` hint (ms) written to the streams the drain closes (defaults.streamableHttp.retryMs). */
  retryMs?: number
  /** Once aborted (a second signal), stop waiting: what is left is closed at once. */
  signal?: AbortSignal
}

/**
 * Stops `server` the way a load balancer can follow, each step after the one before:
 * 1. /healthz answers 503 `{"status":"draining"}` while everything else is served as before, for
 *    `delayMs` (when a health check came in that long), so the balancer takes the server out of
 *    rotation before any connection it may reuse is closed;
 * 2. the listener stops accepting, idle kept-alive connections are closed, and every response
 *    from now on says `Connection: close`;
 * 3. open-ended SSE streams (GET streams, `subscriptions/listen`) end with a `retry:` hint, so
 *    their clients reconnect through the balancer to another server and resume with
 *    Last-Event-ID; requests in flight (a POST's SSE answer included) get up to `timeoutMs`;
 * 4. every connection left is closed.
 */
export async function drain(server: Server, options: DrainOptions = {}): Promise<void> {
  const c = defaults.cli
  const { delayMs = c.drainDelayMs, timeoutMs = c.drainTimeoutMs, retryMs = defaults.streamableHttp.retryMs, signal } = options
  const state = states.get(server)
  if (state !== undefined) {
    state.draining = true
    if (isFollowed(state, delayMs)) await sleep(delayMs, signal)
    state.closing = true
    // a response whose head is not out yet is the last one on its connection
    for (const res of state.open) if (!res.headersSent && !res.writableEnded) res.setHeader('connection', 'close')
  }
  // closes the idle kept-alive connections too
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  if (state !== undefined) {
    for (const res of state.open) if (isOpenEndedStream(res)) endWithRetryHint(res, retryMs)
    const deadline = Date.now() + timeoutMs
    // the streams end within a tick; the rest is work in flight
    while (Date.now() < deadline && signal?.aborted !== true && state.open.size > 0) {
      await sleep(25, signal)
      // a connection whose answer went out before `closing` (no Connection: close) is idle now
      server.closeIdleConnections()
    }
  }
  server.closeAllConnections()
  await closed
}

/** Whether a balancer (or a probe) asked for /healthz within `delayMs`: then it follows the drain. */
function isFollowed(state: ServerState, delayMs: number): boolean {
  return delayMs > 0 && state.lastHealthCheck > 0 && Date.now() - state.lastHealthCheck <= delayMs
}

/**
 * Ends an SSE stream with a `retry:` field, after whatever this tick wrote to it (an SSE writer
 * flushes on the next tick): its client reconnects after that long, elsewhere. A message written
 * later is not lost: resumable streams keep it for Last-Event-ID.
 */
function endWithRetryHint(res: ServerResponse, retryMs: number): void {
  setImmediate(() => {
    if (res.writableEnded || res.destroyed) return
    if (isEventStream(res)) res.write(`retry: ${retryMs}\n\n`)
    res.end()
  })
}

/**
 * Whether the head sent is `text/event-stream`. `writeHead(status, headers)` on a response with no
 * header set before sends them without keeping them (getHeader knows nothing), so the head as sent
 * is read too.
 */
function isEventStream(res: ServerResponse): boolean {
  const type = res.getHeader('content-type') ?? /^content-type:[ \t]*([^\r\n]*)/im.exec((res as unknown as { _header?: string })._header ?? '')?.[1]
  return String(type ?? '').startsWith('text/event-stream')
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) return Promise.resolve()
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
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
export async function listen(handler: RequestListener, host: string, port: number, options: CliServerOptions = {}): Promise<{ server: Server; url: string }> {
  const server = createCliServer(handler, options)
  await listenOn(server, port, host)
  const address = server.address() as AddressInfo
  const name = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${name}:${address.port}`
  process.stdout.write(`listening on ${url}\n`)
  return { server, url }
}

/**
 * Waits for SIGINT or SIGTERM, then shuts down gracefully ({@link drain}: health says draining
 * for `delayMs` while a balancer follows, streams end with a retry hint, requests in flight
 * finish), then `close` ends what they served. A second SIGINT or SIGTERM during the drain stops
 * waiting: what is left is closed at once, then `close` runs (a third signal ends the process).
 */
export async function closeOnSignal(listeners: readonly Server[], close: () => Promise<void>, options: Pick<DrainOptions, 'delayMs'> = {}): Promise<void> {
  await untilSignal()
  const hurry = new AbortController()
  const again = (): void => {
    process.off('SIGINT', again)
    process.off('SIGTERM', again)
    hurry.abort()
  }
  process.once('SIGINT', again)
  process.once('SIGTERM', again)
  const followed = listeners.some((listener) => {
    const state = states.get(listener)
    return state !== undefined && isFollowed(state, options.delayMs ?? defaults.cli.drainDelayMs)
  })
  if (followed)
    process.stderr.write(
      `draining: /healthz answers 503 for ${(options.delayMs ?? defaults.cli.drainDelayMs) / 1000} s while the load balancer takes this node out (a second signal stops now)\n`,
    )
  await Promise.all(listeners.map((listener) => drain(listener, { ...options, signal: hurry.signal })))
  if (!hurry.signal.aborted) {
    process.off('SIGINT', again)
    process.off('SIGTERM', again)
  }
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
