import type { IncomingMessage } from 'node:http'
import { AccessLineWriter } from './access-line-writer.js'
import type { Log } from './log.js'
import type { RequestObserver } from './observer.js'
import type { FinishedRequest } from './request-record.js'

/** How {@link accessLog} writes. */
export interface AccessLogOptions {
  /** Where the lines go (at `info`; the quiet routes at `debug`). */
  log: Log
  /**
   * The caller's address group (an IPv4 address, an IPv6 /64), as the per-address limits count it;
   * the composition builds it from `src/net/address-group.ts` and the proxy trust. Default: none logged.
   */
  addressOf?: (req: IncomingMessage) => string | undefined
  /** Route templates logged at `debug` instead of `info` (the health check a balancer asks every few seconds). */
  quietRoutes?: readonly string[]
}

/**
 * The access log: one line per HTTP request when its answer ends (`request`), with the method,
 * the route template (never the raw path: it may carry a code or a name), the status, the duration
 * in ms, the body bytes, the client and subject when known, the MCP method and tool, the address
 * group and the request id. Nothing else of the request: no header, query or body reaches it.
 *
 * @example
 * const observer = new Observer({ log })
 * observer.addRequestObserver(accessLog({ log, addressOf: (req) => addressGroup(req.socket.remoteAddress ?? '') }))
 */
export function accessLog(options: AccessLogOptions): RequestObserver {
  const { addressOf } = options
  // The line's fields are fixed and none can carry a secret: written as one string, without pino's
  // serializer and redaction (access-line-writer.ts says what that saves)
  const log = options.log
  const writer = new AccessLineWriter(log)
  const quiet = new Set(options.quietRoutes ?? [])
  return {
    needsBytes: true,
    finish(finished: FinishedRequest): void {
      const route = finished.record.route ?? 'unmatched'
      const level = quiet.has(route) ? 'debug' : 'info'
      // one check per request: with the level above, no field is gathered
      if (!log.isLevelEnabled(level)) return
      writer.write(level, finished, route, addressOf?.(finished.req))
    },
  }
}
