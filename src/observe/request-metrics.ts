import { defaults } from '../config/defaults.js'
import { BoundedLabel } from './bounded-label.js'
import { mcpMethodLabel } from './mcp-method-label.js'
import type { Metrics } from './metrics.js'
import type { RequestObserver } from './observer.js'
import type { FinishedRequest } from './request-record.js'

const HTTP_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
const STATUS_CLASSES = ['aborted', '1xx', '2xx', '3xx', '4xx', '5xx'] as const

/** A status's class: `2xx`…`5xx`, or `aborted` when the connection closed before any status was sent. */
export function statusClass(status: number): string {
  return STATUS_CLASSES[status >= 100 && status < 600 ? Math.floor(status / 100) : 0]!
}

/**
 * The request observer of the metrics: HTTP requests by method, route template and status class;
 * MCP requests by method and status class (the method only when the MCP specification defines it);
 * latency histograms of `/token` and of MCP requests; 503 answers (storage or Redis away) by route.
 * A route is the template the router noted (`unmatched` when none did), never the raw path.
 * Each label set's child is looked up once and kept: a request costs a map lookup and two adds.
 */
export function requestMetrics(metrics: Metrics): RequestObserver {
  const http = metrics.counter('mcp_auth_http_requests_total', 'HTTP requests by method, route template and status class.', ['method', 'route', 'status'])
  const mcp = metrics.counter('mcp_auth_mcp_requests_total', 'MCP requests (HTTP requests carrying JSON-RPC) by MCP method and status class.', ['method', 'status'])
  const tokenLatency = metrics.histogram('mcp_auth_token_request_duration_seconds', 'Time to answer a token request (seconds).', [])
  const mcpLatency = metrics.histogram('mcp_auth_mcp_request_duration_seconds', 'Time to answer an MCP request (seconds; a stream counts until it ends).', ['method'])
  const unavailable = metrics.counter('mcp_auth_unavailable_responses_total', '503 answers (storage or Redis unreachable, a shared session away) by route template.', ['route'])
  const routes = new BoundedLabel(defaults.observe.metrics.maxLabelValues)
  const tokenRoute = defaults.authServer.routes.token
  // label sets seen, each with its children: bounded by the labels' own bounds
  const httpChildren = new Map<string, { inc(): void }>()
  const mcpChildren = new Map<string, { count: { inc(): void }; latency: { observe(value: number): void } }>()
  const token = tokenLatency.labels()

  return {
    finish({ record, status, durationMs }: FinishedRequest): void {
      const route = record.route === undefined ? 'unmatched' : routes.value(record.route)
      const method = HTTP_METHODS.has(record.method) ? record.method : 'other'
      const statusLabel = statusClass(status)
      const key = `${method} ${statusLabel} ${route}`
      let child = httpChildren.get(key)
      if (child === undefined) {
        child = http.labels({ method, route, status: statusLabel })
        httpChildren.set(key, child)
      }
      child.inc()
      if (status === 503) unavailable.inc({ route })
      if (record.mcpMethod !== undefined) {
        const mcpMethod = mcpMethodLabel(record.mcpMethod)
        const mcpKey = `${mcpMethod} ${statusLabel}`
        let children = mcpChildren.get(mcpKey)
        if (children === undefined) {
          children = { count: mcp.labels({ method: mcpMethod, status: statusLabel }), latency: mcpLatency.labels({ method: mcpMethod }) }
          mcpChildren.set(mcpKey, children)
        }
        children.count.inc()
        children.latency.observe(durationMs / 1000)
      } else if (route === tokenRoute) {
        token.observe(durationMs / 1000)
      }
    },
  }
}
