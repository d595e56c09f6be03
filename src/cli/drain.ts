import type { Server, ServerResponse } from 'node:http'
import { defaults } from '../config/defaults.js'
import { isOpenEndedStream } from '../transports/http/open-ended-stream.js'
import { cliServerStates, type CliServerState } from './cli-server-state.js'

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
  const state = cliServerStates.get(server)
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
export function isFollowed(state: CliServerState, delayMs: number): boolean {
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
