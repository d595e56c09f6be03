import { hostname } from 'node:os'
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { AuditEvent, AuditTrail, StoredAuditEvent } from './audit-event.js'
import { type Log, silentLog } from './log.js'
import { requestId } from './request-id.js'
import { attachRequestRecord, type FinishedRequest, type RequestRecord } from './request-record.js'

/**
 * Something that watches every request: the access line, the metrics, the spans. `start` runs as
 * the request arrives, `finish` once when its answer ended (sent, or the connection closed).
 * Both run on the request path: they stay cheap (a counter, a line) and never throw.
 */
export interface RequestObserver {
  /**
   * Reads {@link FinishedRequest.bytes} (the access line): only then are the socket's counters read
   * at the start and the end of each request (two getters that copy its write buffer).
   */
  readonly needsBytes?: boolean
  start?(record: RequestRecord, req: IncomingMessage): void
  finish(finished: FinishedRequest): void
}

/** Runs a request's listener (`listener(req, res)`) in a scope of its own: the request span's context. */
export type RequestScope = (record: RequestRecord, listener: RequestListener, req: IncomingMessage, res: ServerResponse) => void

export interface ObserverOptions {
  /** The server's log (default: silent). */
  log?: Log
  /** Where security events are kept (default: none; they still reach the log and the audit observers). */
  trail?: AuditTrail
  /** This node's name in events (default: host name and pid). */
  node?: string
  /** Take `x-request-id`/`traceparent` from the request (only behind a proxy that sets them). */
  trustProxy?: boolean
}

/**
 * Everything the server reports about itself, in one object handed to each part: the log, the
 * audit trail (with whoever listens to its events, e.g. the metrics) and the request observers
 * (access lines, metrics, spans). Made once per process by the composition (app/, cli/); a part
 * given none gets {@link Observer.quiet}.
 *
 * @example
 * const observer = new Observer({ log: createLog({ level: 'info' }) })
 * http.createServer(observer.observeRequests(handler))
 */
export class Observer {
  readonly log: Log
  #eventLog: Log | undefined
  readonly node: string
  #trail: AuditTrail | undefined
  readonly #trustProxy: boolean
  readonly #requestObservers: RequestObserver[] = []
  /** Whether a request observer reads the bytes sent (shared with the wrapped listeners: observers may come later). */
  readonly #counting = { bytes: false }
  readonly #auditObservers: Array<(event: StoredAuditEvent) => void> = []
  #requestScope: RequestScope | undefined
  #sequence = 0

  constructor(options: ObserverOptions = {}) {
    this.log = options.log ?? silentLog()
    this.#trail = options.trail
    this.node = options.node ?? `${hostname()}:${process.pid}`
    this.#trustProxy = options.trustProxy === true
  }

  /** Where security events are kept, once one is attached (the authorization server attaches its store's). */
  get trail(): AuditTrail | undefined {
    return this.#trail
  }

  /** Keeps security events in `trail` from now on (once: a second trail is refused, an event must not be split between two). */
  attachTrail(trail: AuditTrail): void {
    if (this.#trail !== undefined && this.#trail !== trail) throw new Error('this observer already keeps its audit trail elsewhere')
    this.#trail = trail
  }

  /** An observer that reports nothing (the default of a part given none). */
  static quiet(): Observer {
    return new Observer()
  }

  /** Adds a request observer (access lines, metrics, spans): it sees requests that arrive from now on. */
  addRequestObserver(observer: RequestObserver): void {
    this.#requestObservers.push(observer)
    if (observer.needsBytes === true) this.#counting.bytes = true
  }

  /**
   * Runs each observed request's listener through `scope` (once: the spans run it inside the
   * request span's context, so what the request does is that span's child).
   */
  setRequestScope(scope: RequestScope): void {
    this.#requestScope = scope
  }

  /** Adds a listener for every audit event recorded from now on (the metrics count them). */
  addAuditObserver(listener: (event: StoredAuditEvent) => void): void {
    this.#auditObservers.push(listener)
  }

  /**
   * Records a security event, once, where the flow decided it: stamped (id, time, node), appended
   * to the trail, passed to the audit observers and written to the log at `info`. Never throws.
   */
  audit(event: AuditEvent): void {
    const now = Date.now()
    const stored: StoredAuditEvent = { id: `${now}-${this.#sequence++}`, at: new Date(now).toISOString(), node: this.node, ...event }
    try {
      this.#trail?.append(stored)
    } catch (error) {
      this.log.error({ err: error, event: event.type }, 'audit trail: could not append an event')
    }
    for (const listener of this.#auditObservers) listener(stored)
    // at info only: the check first, so a quieter log pays nothing for the line
    if (this.log.isLevelEnabled('info')) this.#auditLog().info({ audit: stored }, event.type)
  }

  /**
   * The log the events are written to: the observer's, without pino's redaction, whose wildcard
   * paths walk every field (~10 µs a line). An event carries only the fields its flow chose, never
   * a secret (audit-event.ts), so there is nothing to censor.
   */
  #auditLog(): Log {
    this.#eventLog ??= this.log.child({}, { redact: [] })
    return this.#eventLog
  }

  /**
   * Wraps a node:http listener so every request gets a record (its id returned in `x-request-id`)
   * and every request observer sees it start and finish. With no observer it adds only the id.
   */
  observeRequests(listener: RequestListener): RequestListener {
    const observers = this.#requestObservers
    const counting = this.#counting
    const trustProxy = this.#trustProxy
    const self = this
    return function observedRequest(req: IncomingMessage, res: ServerResponse): void {
      // every field from the start: one shape for every record (a field added later would change it)
      const record: RequestRecord = {
        id: requestId(req, trustProxy),
        method: req.method ?? 'GET',
        startedAt: process.hrtime.bigint(),
        route: undefined,
        clientId: undefined,
        subject: undefined,
        mcpMethod: undefined,
        mcpTarget: undefined,
      }
      attachRequestRecord(req, record)
      res.setHeader('x-request-id', record.id)
      if (observers.length > 0) {
        for (const observer of observers) observer.start?.(record, req)
        const socket = counting.bytes ? req.socket : undefined
        const before = socket?.bytesWritten ?? 0
        // 'close' comes once, after the answer was sent or when the connection closed first
        // (node:http ServerResponse): one listener where 'finish' and 'close' would be two, and
        // `on`, not `once` (which wraps the listener in a bound function per request)
        res.on('close', (): void => {
          const finished: FinishedRequest = {
            record,
            req,
            status: res.headersSent ? res.statusCode : 0,
            durationMs: Number(process.hrtime.bigint() - record.startedAt) / 1e6,
            bytes: socket === undefined ? 0 : bytesWritten(res, socket.bytesWritten - before),
            aborted: !res.writableFinished,
          }
          for (const observer of observers) observer.finish(finished)
        })
      }
      const scope = self.#requestScope
      if (scope === undefined) listener(req, res)
      else scope(record, listener, req, res)
    }
  }
}

/**
 * Body bytes sent: the content-length when given, else what the socket wrote while this answer
 * was served (a chunked or SSE answer; its headers and chunk framing included).
 */
function bytesWritten(res: ServerResponse, written: number): number {
  const length = res.getHeader('content-length')
  if (typeof length === 'number') return length
  if (typeof length === 'string') return Number(length) || 0
  return Math.max(0, written)
}
