import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { Observer } from './observer.js'
import type { RequestRecord } from './request-record.js'
import { ourTracer, tracingOn } from './tracing.js'

/**
 * One SERVER span per HTTP request, the parent of the spans made while it is served (the token
 * issuance, the MCP request): started when the request arrives, with the incoming W3C
 * `traceparent`/`tracestate` as its parent (the global propagator's extract), the listener run
 * inside its context, ended when the answer ended with `http.route` (the template, never the raw
 * path) and `http.response.status_code`. It is the observer's request scope, not a request
 * observer: with no SDK registered a request costs one check (~10 ns) and nothing is made.
 *
 * @example
 * const observer = new Observer()
 * traceRequests(observer)
 * http.createServer(observer.observeRequests(handler))
 * @see https://opentelemetry.io/docs/specs/semconv/http/http-spans/#http-server
 */
export function traceRequests(observer: Observer): void {
  observer.setRequestScope(function tracedRequest(record: RequestRecord, listener: RequestListener, req: IncomingMessage, res: ServerResponse): void {
    if (!tracingOn()) return listener(req, res)
    const parent = propagation.extract(ROOT_CONTEXT, req.headers)
    const span = ourTracer().startSpan(record.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': record.method } }, parent)
    let ended = false
    const end = (): void => {
      if (ended) return
      ended = true
      if (record.route !== undefined) {
        span.setAttribute('http.route', record.route)
        span.updateName(`${record.method} ${record.route}`)
      }
      const status = res.headersSent ? res.statusCode : 0
      span.setAttribute('http.response.status_code', status)
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
      span.end()
    }
    res.once('finish', end)
    res.once('close', end)
    context.with(trace.setSpan(parent, span), listener, undefined, req, res)
  })
}
