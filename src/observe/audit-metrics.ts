import { defaults } from '../config/defaults.js'
import { AUDIT_GRANT_TYPES, type StoredAuditEvent } from './audit-event.js'
import { BoundedLabel } from './bounded-label.js'
import type { Metrics } from './metrics.js'

/** Sign-in factors a label names as they are. */
const FACTORS: ReadonlySet<string> = new Set(['password', 'upstream', 'passkey', 'totp'])

/**
 * The counters fed by audit events: tokens by grant type and result, sign-ins by result and
 * factor, registrations, refusals by event and reason, rate-limit refusals, gateway children
 * started and crashed. Labels take fixed sets of values (reasons are capped by {@link BoundedLabel}):
 * never a subject, a client id, a username or a resource.
 */
export function auditMetrics(metrics: Metrics): (event: StoredAuditEvent) => void {
  const tokens = metrics.counter('mcp_auth_token_requests_total', 'Token endpoint answers by grant type and result (success, failure, refused).', ['grant_type', 'result'])
  const signIns = metrics.counter('mcp_auth_sign_ins_total', 'Sign-ins by result (success, failure, rate_limited) and factor.', ['result', 'factor'])
  const registrations = metrics.counter('mcp_auth_client_registrations_total', 'Clients registered (dynamic registration, the admin API, the CLI).', [])
  const refusals = metrics.counter('mcp_auth_refusals_total', 'Security events that failed or were refused, by event and reason.', ['event', 'reason'])
  const rateLimited = metrics.counter('mcp_auth_rate_limited_total', 'Requests refused by a rate limit, by surface (sign-in, mcp).', ['surface'])
  const childrenStarted = metrics.counter('mcp_auth_gateway_children_started_total', 'Gateway child processes started.', [])
  const childrenCrashed = metrics.counter('mcp_auth_gateway_children_crashed_total', 'Gateway child processes that ended unasked (crashed).', [])
  const reasons = new BoundedLabel(defaults.observe.metrics.maxLabelValues)
  const label = (value: unknown, known: ReadonlySet<string>): string => (typeof value !== 'string' ? 'none' : known.has(value) ? value : 'other')

  return function countAuditEvent(event: StoredAuditEvent): void {
    if (event.result !== 'success') refusals.inc({ event: event.type, reason: reasons.value(event.reason) })
    switch (event.type) {
      case 'token.issued':
      case 'token.refused':
        tokens.inc({ grant_type: label(event.details?.['grant_type'], AUDIT_GRANT_TYPES), result: event.result })
        return
      case 'sign-in.succeeded':
      case 'sign-in.failed':
      case 'sign-in.rate-limited': {
        const result = event.type === 'sign-in.succeeded' ? 'success' : event.type === 'sign-in.failed' ? 'failure' : 'rate_limited'
        signIns.inc({ result, factor: label(event.details?.['factor'], FACTORS) })
        if (result === 'rate_limited') rateLimited.inc({ surface: 'sign-in' })
        return
      }
      case 'mcp.rate-limited':
        rateLimited.inc({ surface: 'mcp' })
        return
      case 'client.registered':
        if (event.result === 'success') registrations.inc()
        return
      case 'gateway.child-started':
        childrenStarted.inc()
        return
      case 'gateway.child-crashed':
        childrenCrashed.inc()
        return
      default:
    }
  }
}
