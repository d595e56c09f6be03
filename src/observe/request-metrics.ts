import { defaults } from '../config/defaults.js'
import { BoundedLabel } from './bounded-label.js'
import { mcpMethodLabel } from './mcp-method-label.js'
import type { Metrics } from './metrics.js'
import type { RequestObserver } from './observer.js'
import type { FinishedRequest } from './request-record.js'
import type { CounterCell, HistogramCell } from './tally.js'

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'other'] as const
const METHOD_INDEX = new Map<string, number>(HTTP_METHODS.map((method, i) => [method, i]))
const STATUS_CLASSES = ['aborted', '1xx', '2xx', '3xx', '4xx', '5xx'] as const

/** A status's class index in STATUS_CLASSES: `2xx`…`5xx`, or `aborted` when the connection closed before any status was sent. */
function statusIndex(status: number): number {
  return status >= 100 && status < 600 ? Math.floor(status / 100) : 0
}

/**
 * The request observer of the metrics: HTTP requests by method, route template and status class;
 * MCP requests by method and status class (the method only when the MCP specification defines it);
 * latency histograms of `/token` and of MCP requests; 503 answers (storage or Redis away) by route.
 * A route is the template the router noted (`unmatched` when none did), never the raw path.
 * On the request path a request costs two map lookups (by the route and the MCP method, both
 * strings the routers keep), an array index and a few adds: the series' cells are made once.
 */
export function requestMetrics(metrics: Metrics): RequestObserver {
  const http = metrics.tallyCounter('mcp_auth_http_requests_total', 'HTTP requests by method, route template and status class.')
  const mcp = metrics.tallyCounter('mcp_auth_mcp_requests_total', 'MCP requests (HTTP requests carrying JSON-RPC) by MCP method and status class.')
  const tokenLatency = metrics.tallyHistogram('mcp_auth_token_request_duration_seconds', 'Time to answer a token request (seconds).')
  const mcpLatency = metrics.tallyHistogram('mcp_auth_mcp_request_duration_seconds', 'Time to answer an MCP request (seconds; a stream counts until it ends).')
  const unavailable = metrics.tallyCounter('mcp_auth_unavailable_responses_total', '503 answers (storage or Redis unreachable, a shared session away) by route template.')
  const routes = new BoundedLabel(defaults.observe.metrics.maxLabelValues)
  const tokenRoute = defaults.authServer.routes.token
  const token = tokenLatency.cell({})

  interface RouteCells {
    readonly route: string
    readonly requests: Array<CounterCell | undefined>
    unavailable?: CounterCell
  }
  interface McpCells {
    readonly method: string
    readonly requests: Array<CounterCell | undefined>
    readonly latency: HistogramCell
  }
  // by the route template as noted (only templates the bound accepted: anything else is `other`'s, looked up each time)
  const byRoute = new Map<string, RouteCells>()
  const byMcpMethod = new Map<string, McpCells>()
  const routeCells = (noted: string | undefined): RouteCells => {
    const key = noted ?? 'unmatched'
    const found = byRoute.get(key)
    if (found !== undefined) return found
    const route = noted === undefined ? 'unmatched' : routes.value(noted)
    const cells = byRoute.get(route) ?? { route, requests: [] }
    byRoute.set(route, cells)
    return cells
  }
  const mcpCells = (noted: string): McpCells => {
    const method = mcpMethodLabel(noted)
    let cells = byMcpMethod.get(method)
    if (cells === undefined) {
      cells = { method, requests: [], latency: mcpLatency.cell({ method }) }
      byMcpMethod.set(method, cells)
    }
    return cells
  }

  return {
    finish({ record, status, durationMs }: FinishedRequest): void {
      const cells = routeCells(record.route)
      const method = METHOD_INDEX.get(record.method) ?? 7
      const statusClass = statusIndex(status)
      const index = method * STATUS_CLASSES.length + statusClass
      const requests = (cells.requests[index] ??= http.cell({ method: HTTP_METHODS[method]!, route: cells.route, status: STATUS_CLASSES[statusClass]! }))
      requests.value += 1
      if (status === 503) (cells.unavailable ??= unavailable.cell({ route: cells.route })).value += 1
      if (record.mcpMethod !== undefined) {
        const calls = byMcpMethod.get(record.mcpMethod) ?? mcpCells(record.mcpMethod)
        ;(calls.requests[statusClass] ??= mcp.cell({ method: calls.method, status: STATUS_CLASSES[statusClass]! })).value += 1
        mcpLatency.observe(calls.latency, durationMs / 1000)
      } else if (cells.route === tokenRoute) {
        tokenLatency.observe(token, durationMs / 1000)
      }
    },
  }
}
