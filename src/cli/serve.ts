import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { defaults } from '../config/defaults.js'
import { noteRoute } from '../observe/request-record.js'
import { cliServerStates, type CliServerState } from './cli-server-state.js'
import { drain, isFollowed, type DrainOptions } from './drain.js'
import { holdsStatusKey } from './status-key.js'

/** What {@link createCliServer} may add in front of the handler. */
export interface CliServerOptions {
  /**
   * Answer `GET /healthz` (defaults.cli.healthPath) with 200 while this returns true, 503
   * otherwise (and while draining), before the handler sees the request.
   */
  health?: () => Promise<boolean>
  /**
   * With `health`: a request to it carrying `key` in the `defaults.cli.statusKeyHeader` header
   * (`mcp-auth status`, which reads the key from the server file) is also given `details()`; any
   * other request gets `{"status":…}` only.
   */
  status?: { key: string; details: () => Promise<object> }
  /**
   * Wraps the health answers as the handler's requests are (its id, its access line): the
   * observer's `observeRequests`. The handler wraps its own requests.
   */
  observe?: (listener: RequestListener) => RequestListener
}

/**
 * An HTTP server with the CLI's timeouts: a client gets `headersTimeoutMs` to send its headers
 * and `requestTimeoutMs` to send its whole request (body included); a slow or stalled upload is
 * then cut off instead of holding a connection for minutes. Responses (SSE streams) may last as
 * long as they need: these clocks stop once the request is in. It keeps count of its open
 * responses, so {@link closeOnSignal} can let requests in flight finish.
 */
export function createCliServer(handler: RequestListener, options: CliServerOptions = {}): Server {
  const c = defaults.cli
  const state: CliServerState = { open: new Set(), draining: false, closing: false, lastHealthCheck: 0 }
  // one listener for every response ('close' comes once)
  const forget = function forget(this: ServerResponse): void {
    state.open.delete(this)
  }
  const { health, status } = options
  const answer: RequestListener = (req, res) => {
    noteRoute(req, c.healthPath)
    const asked = status !== undefined && holdsStatusKey(req, status.key)
    // `mcp-auth status` is not a load balancer: it must not make a shutdown wait for one
    if (!asked) state.lastHealthCheck = Date.now()
    void answerHealth(res, state, health!, asked ? status.details : undefined)
  }
  const healthAnswer = options.observe?.(answer) ?? answer
  const server = createServer(
    { connectionsCheckingInterval: c.connectionsCheckingIntervalMs, headersTimeout: c.headersTimeoutMs, requestTimeout: c.requestTimeoutMs },
    (req, res) => {
      state.open.add(res)
      res.on('close', forget)
      if (health !== undefined && req.method === 'GET' && (req.url === c.healthPath || req.url?.startsWith(`${c.healthPath}?`))) {
        healthAnswer(req, res)
        return
      }
      // once the drain closes connections, a request on a kept-alive one is the last one on it
      if (state.closing) res.setHeader('connection', 'close')
      handler(req, res)
    },
  )
  // longer than a balancer keeps idle connections for reuse: the node never closes one it is about to use
  server.keepAliveTimeout = c.keepAliveTimeoutMs
  cliServerStates.set(server, state)
  return server
}

async function answerHealth(res: ServerResponse, state: CliServerState, health: () => Promise<boolean>, details?: () => Promise<object>): Promise<void> {
  const status = state.draining ? 'draining' : (await health().catch(() => false)) ? 'ok' : 'unavailable'
  const body = JSON.stringify(details === undefined ? { status } : { status, ...(await details().catch(() => ({}))) })
  res.writeHead(status === 'ok' ? 200 : 503, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
    // storage away: as every other path says it (a draining node says nothing: it is going)
    ...(status === 'unavailable' ? { 'retry-after': String(defaults.streamableHttp.storageRetryAfterSeconds) } : {}),
  })
  res.end(body)
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

/**
 * The listeners of a server on `host` when one is given, else on loopback: 127.0.0.1, and ::1 too
 * when the machine has IPv6 loopback ("localhost" may resolve to ::1 first). A busy port on the
 * first runs `cleanup` and throws what to do (see listenOrExplain).
 */
export async function listenServers(
  handler: RequestListener,
  options: CliServerOptions,
  port: number,
  host: string | undefined,
  cleanup: () => Promise<void>,
  how: string,
): Promise<Server[]> {
  const first = createCliServer(handler, options)
  await listenOrExplain(first, port, host ?? '127.0.0.1', cleanup, how)
  const servers = [first]
  if (host === undefined) {
    const v6 = createCliServer(handler, options)
    await listenOn(v6, port, '::1').then(
      () => servers.push(v6),
      () => undefined,
    )
  }
  return servers
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
    const state = cliServerStates.get(listener)
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
