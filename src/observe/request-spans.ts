import type { IncomingMessage } from 'node:http'
import { type Context, context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { Observer } from './observer.js'
import type { FinishedRequest, RequestRecord } from './request-record.js'
import { ourTracer, tracingOn } from './tracing.js'

const SPAN = Symbol('mcp-auth.request-span')
type Slot = { span: Span; context: Context }

/**
 * One SERVER span per HTTP request, the parent of the spans made while it is served (the token
 * issuance, the MCP request): started when the request arrives, with the incoming W3C
 * `traceparent`/`tracestate` as its parent (the global propagator's extract), the listener run
 * inside its context, ended when the answer ended with `http.route` (the template, never the raw
 * path) and `http.response.status_code`. With no SDK registered: nothing made, the listener run as is.
 *
 * @example
 * const observer = new Observer()
 * traceRequests(observer)
 * http.createServer(observer.observeRequests(handler))
 * @see https://opentelemetry.io/docs/specs/semconv/http/http-spans/#http-server
 */
export function traceRequests(observer: Observer): void {
  observer.addRequestObserver({
    start(record: RequestRecord, req: IncomingMessage): void {
      if (!tracingOn()) return
      const parent = propagation.extract(ROOT_CONTEXT, req.headers)
      const span = ourTracer().startSpan(record.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': record.method } }, parent)
      record.slots.set(SPAN, { span, context: trace.setSpan(parent, span) } satisfies Slot)
    },
    finish({ record, status }: FinishedRequest): void {
      const slot = record.slots.get(SPAN) as Slot | undefined
      if (slot === undefined) return
      const { span } = slot
      if (record.route !== undefined) {
        span.setAttribute('http.route', record.route)
        span.updateName(`${record.method} ${record.route}`)
      }
      span.setAttribute('http.response.status_code', status)
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
      span.end()
    },
  })
  observer.setRequestScope((record, listener, req, res) => {
    const slot = record.slots.size === 0 ? undefined : (record.slots.get(SPAN) as Slot | undefined)
    if (slot === undefined) listener(req, res)
    else context.with(slot.context, listener, undefined, req, res)
  })
}
