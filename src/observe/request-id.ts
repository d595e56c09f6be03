import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** What a request id from a proxy may look like: short, printable, no spaces (a log line stays one line). */
const ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/
/** W3C trace context: version-traceid-parentid-flags. */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/

/**
 * This process's ids: a random prefix (so two nodes, or two starts, never give the same id) and a
 * counter. An id names a request in the log, it is no secret: a UUID per request cost ~1 µs more.
 */
const PREFIX = randomBytes(9).toString('base64url')
let counter = 0

/**
 * The id of a request: the `x-request-id` a trusted proxy sent, else the trace id of the
 * `traceparent` it sent, else a new one. From an untrusted peer neither is taken (anyone could
 * make their requests look like another's in the log).
 */
export function requestId(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const given = req.headers['x-request-id']
    if (typeof given === 'string' && ID.test(given)) return given
    const traceparent = req.headers['traceparent']
    const trace = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null
    if (trace !== null && trace[1] !== '00000000000000000000000000000000') return trace[1]!
  }
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER
  return `${PREFIX}-${counter.toString(36)}`
}
