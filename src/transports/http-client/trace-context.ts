import { context, propagation, trace } from '@opentelemetry/api'

/**
 * `fetch` that passes the active trace on: when a span is active (an OpenTelemetry SDK is
 * registered and the caller is inside a span), each request carries its W3C `traceparent` and
 * `tracestate` (the global propagator's inject), so the server's spans are children of the
 * client's. Otherwise the request goes out as it was (no header, no copy).
 *
 * @example
 * const transport = new StreamableHttpClientTransport(url, { fetch: withTraceContext(fetch) })
 * @see https://www.w3.org/TR/trace-context/#traceparent-header
 */
export function withTraceContext(fetchImpl: typeof fetch): typeof fetch {
  return function tracedFetch(input, init) {
    const active = context.active()
    if (trace.getSpan(active) === undefined) return fetchImpl(input, init)
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
    propagation.inject(active, headers, { set: (carrier, key, value) => carrier.set(key, value) })
    return fetchImpl(input, { ...init, headers })
  }
}
