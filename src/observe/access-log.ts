import type { IncomingMessage } from 'node:http'
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
  // The line's fields are fixed and none can carry a secret: pino's redaction (wildcard paths walk
  // every field, ~10 µs a line) has nothing to censor here, so this child skips it.
  const log = options.log.child({}, { redact: [] })
  const quiet = new Set(options.quietRoutes ?? [])
  return {
    finish(finished: FinishedRequest): void {
      const { record } = finished
      const route = record.route ?? 'unmatched'
      const level = quiet.has(route) ? 'debug' : 'info'
      // one check per request: with the level above, no field is gathered
      if (!log.isLevelEnabled(level)) return
      const line: AccessLine = {
        request_id: record.id,
        method: record.method,
        route,
        status: finished.status,
        duration_ms: Math.round(finished.durationMs * 10) / 10,
        bytes: finished.bytes,
      }
      if (record.clientId !== undefined) line.client_id = record.clientId
      if (record.subject !== undefined) line.sub = record.subject
      if (record.mcpMethod !== undefined) line.mcp_method = record.mcpMethod
      if (record.mcpTarget !== undefined) line.mcp_target = record.mcpTarget
      const group = addressOf?.(finished.req)
      if (group !== undefined) line.address_group = group
      if (finished.aborted) line.aborted = true
      log[level](line, 'request')
    },
  }
}

/** The fields of an access line (snake_case: what an operator greps for). */
interface AccessLine {
  request_id: string
  method: string
  route: string
  status: number
  duration_ms: number
  bytes: number
  client_id?: string
  sub?: string
  mcp_method?: string
  mcp_target?: string
  address_group?: string
  aborted?: true
}
