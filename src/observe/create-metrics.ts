import { auditMetrics } from './audit-metrics.js'
import { Metrics } from './metrics.js'
import type { Observer } from './observer.js'
import { requestMetrics } from './request-metrics.js'

const ATTACHED = new WeakMap<Observer, Metrics>()

/**
 * Turns metrics on for everything `observer` is handed to: counters fed by its audit events,
 * request counts and latencies fed by its request observer, the process metrics. Call it before
 * the server is built, so the composition registers its gauges (sessions, children, Redis); once
 * per observer (a second call returns the same metrics).
 *
 * @example
 * const observer = new Observer()
 * createMetrics(observer)
 * const job = await createMainJob({ observer })
 * // GET /metrics with an admin token, or serveMetrics on a listener of its own
 */
export function createMetrics(observer: Observer): Metrics {
  const existing = ATTACHED.get(observer)
  if (existing !== undefined) return existing
  const metrics = new Metrics()
  observer.addAuditObserver(auditMetrics(metrics))
  observer.addRequestObserver(requestMetrics(metrics))
  ATTACHED.set(observer, metrics)
  return metrics
}

/** The metrics of `observer`, when they are on. */
export function metricsOf(observer: Observer): Metrics | undefined {
  return ATTACHED.get(observer)
}
