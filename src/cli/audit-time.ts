import { auditTime } from '../observe/audit-time.js'
import { UsageError } from './command.js'

/** A time of `mcp-auth audit --since/--until` (see auditTime), or a usage error naming the forms. */
export function parseAuditTime(option: string, value: string, now: number): number {
  const at = auditTime(value, now)
  if (at === undefined) throw new UsageError(`${option} takes a duration back from now (30m, 1h, 2d, 1w) or an ISO date-time (2026-11-20T10:00:00Z), got ${value}`)
  return at
}
