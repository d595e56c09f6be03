import type { IncomingMessage } from 'node:http'
import type { Log } from './log.js'
import { requestRecord } from './request-record.js'

/**
 * Writes an error to the log as what it is. The client's mistake (an error that says it may be
 * shown: `expose`, the http-errors and OAuthError contract; any 4xx) is one line at `info` without a
 * stack; a line meant for the log (`logLevel` set, e.g. a refusal summary) is that one line at its
 * level; storage out of reach (a 503) is one line at `warn`, with what failed; anything else is our
 * own bug: `error`, with its stack. The request's id and route join the line when there is one.
 *
 * @example
 * app.on('error', (error, ctx) => logError(observer.log, error, ctx?.req))
 */
export function logError(log: Log, error: unknown, req?: IncomingMessage, message = 'request failed'): void {
  const record = req === undefined ? undefined : requestRecord(req)
  const where = record === undefined ? {} : { request_id: record.id, ...(record.route !== undefined ? { route: record.route } : {}) }
  if (!(error instanceof Error)) {
    log.error({ ...where, err: new Error(String(error)) }, message)
    return
  }
  const known = error as Error & { expose?: unknown; status?: unknown; statusCode?: unknown; error?: unknown; logLevel?: unknown }
  const status = typeof known.status === 'number' ? known.status : typeof known.statusCode === 'number' ? known.statusCode : undefined
  const code = typeof known.error === 'string' ? { error: known.error } : {}
  if (known.logLevel === 'info' || known.logLevel === 'warn') {
    log[known.logLevel]({ ...where }, error.message)
    return
  }
  // before `expose`: a 503 shows its description to the client, yet it is no client's doing
  const storage = unavailable(error)
  if (status === 503 || storage) {
    log.warn({ ...where, status: 503, ...code, reason: error.message, cause: causeOf(error) }, storage ? 'storage unavailable' : 'unavailable')
    return
  }
  if (known.expose === true || (status !== undefined && status >= 400 && status < 500)) {
    if (log.isLevelEnabled('info')) log.info({ ...where, ...(status !== undefined ? { status } : {}), ...code, reason: error.message }, 'request refused')
    return
  }
  log.error({ ...where, err: error }, message)
}

/** The storage-outage error (sessions/storage-unavailable.ts), here or as a cause: by name, observe/ imports neither. */
function unavailable(error: Error): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e.name === 'StorageUnavailableError') return true
  return false
}

function causeOf(error: Error): string | undefined {
  return error.cause instanceof Error ? error.cause.message : undefined
}
