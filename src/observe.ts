/**
 * mcp-auth/observe: what a server reports about itself (docs/operations.md). One `Observer` is
 * handed to each part (`createMainJob`, `createGatewayJob`, `createAuthorizationServer`,
 * `createProtectedMcpApp` take it as `observer`): its pino log, the audit trail of security events,
 * the request observers (access lines, metrics, spans).
 *
 * @example
 * import { accessLog, createLog, createMetrics, Observer, traceRequests } from 'mcp-auth/observe'
 * const log = createLog({ level: 'info' })
 * const observer = new Observer({ log })
 * observer.addRequestObserver(accessLog({ log }))
 * createMetrics(observer)
 * traceRequests(observer)
 */
export { Observer, type ObserverOptions, type RequestObserver } from './observe/observer.js'
export { createLog, silentLog, logLevelFromEnv, LOG_LEVELS, type Log, type LogLevel, type LogOptions } from './observe/log.js'
export { accessLog, type AccessLogOptions } from './observe/access-log.js'
export {
  AUDIT_EVENT_TYPES,
  type AuditActor,
  type AuditChannel,
  type AuditEvent,
  type AuditEventType,
  type AuditQuery,
  type AuditTrail,
  type StoredAuditEvent,
} from './observe/audit-event.js'
export { FileAuditTrail, type FileAuditTrailOptions } from './observe/file-audit-trail.js'
export { RedisAuditTrail, type RedisAuditTrailOptions } from './redis/redis-audit-trail.js'
export { createMetrics, metricsOf } from './observe/create-metrics.js'
export type { Metrics } from './observe/metrics.js'
export { traceRequests } from './observe/request-spans.js'
export { requestRecord, noteCaller, noteRoute, type FinishedRequest, type RequestRecord } from './observe/request-record.js'
