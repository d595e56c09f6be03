import { metricsOf } from '../observe/create-metrics.js'
import type { Observer } from '../observe/observer.js'
import { traceRequests } from '../observe/request-spans.js'

/** What a job tells its metrics about: its MCP apps' handlers, its storage. */
export interface ObservedJobParts {
  /** Every MCP app the job serves (each with its Streamable HTTP and legacy HTTP+SSE handlers). */
  mcps: readonly { streamable: { sessionCount: number; listenStreamCount: number; standaloneStreamCount: number }; legacySse: { sessionCount: number } }[]
  /** Whether Redis answers (the job's health), when the job runs on Redis. */
  redis?: () => Promise<boolean>
}

const observed = new WeakSet<Observer>()

/**
 * Turns on what a job reports beyond its log and audit events: a span per HTTP request (made only
 * while an OpenTelemetry SDK is registered) and, when the observer has metrics, the gauges read
 * at each scrape: open MCP sessions and streams by transport, Redis up.
 * Once per observer (a second job on the same observer adds nothing: its counts would be doubled).
 */
export function observeJob(observer: Observer, parts: ObservedJobParts): void {
  if (observed.has(observer)) return
  observed.add(observer)
  traceRequests(observer)
  const metrics = metricsOf(observer)
  if (metrics === undefined) return
  const { mcps, redis } = parts
  if (redis !== undefined) {
    metrics.addGauge({
      name: 'mcp_auth_redis_up',
      help: 'Whether Redis answered at the last scrape (1) or not (0).',
      async collect(set) {
        set((await redis().catch(() => false)) ? 1 : 0)
      },
    })
  }
  // a server without MCP endpoints (the standalone authorization server) has no sessions to gauge
  if (mcps.length === 0) return
  const sum = (count: (mcp: ObservedJobParts['mcps'][number]) => number): number => mcps.reduce((total, mcp) => total + count(mcp), 0)
  metrics.addGauge({
    name: 'mcp_auth_mcp_sessions_open',
    help: 'MCP sessions open in this process, by transport.',
    labelNames: ['transport'],
    collect(set) {
      set(
        sum((mcp) => mcp.streamable.sessionCount),
        { transport: 'streamable-http' },
      )
      set(
        sum((mcp) => mcp.legacySse.sessionCount),
        { transport: 'sse' },
      )
    },
  })
  metrics.addGauge({
    name: 'mcp_auth_mcp_streams_open',
    help: 'Server-sent event streams open in this process, by transport (GET streams of sessions and subscriptions/listen; a legacy HTTP+SSE session is one stream).',
    labelNames: ['transport'],
    collect(set) {
      set(
        sum((mcp) => mcp.streamable.listenStreamCount + mcp.streamable.standaloneStreamCount),
        { transport: 'streamable-http' },
      )
      set(
        sum((mcp) => mcp.legacySse.sessionCount),
        { transport: 'sse' },
      )
    },
  })
}
