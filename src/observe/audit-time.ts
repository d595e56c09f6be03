const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/**
 * A time an operator gives to read the audit trail (`mcp-auth audit --since`, the console's
 * filter): a duration back from `now` (`30s`, `15m`, `1h`, `2d`, `1w`) or an ISO 8601 date or
 * date-time (`2026-11-20`, `2026-11-20T10:00:00Z`); ms since the epoch, undefined when it is neither.
 *
 * @example
 * auditTime('1h', Date.now()) // an hour ago
 */
export function auditTime(value: string, now: number): number | undefined {
  const relative = /^([0-9]{1,6})([smhdw])$/.exec(value)
  if (relative !== null) return now - Number(relative[1]) * UNIT_MS[relative[2]!]!
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})?)?$/.test(value)) return undefined
  const at = Date.parse(value)
  return Number.isFinite(at) ? at : undefined
}
