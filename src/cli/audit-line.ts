import type { StoredAuditEvent } from '../observe/audit-event.js'
import { terminalSafe } from './terminal-safe.js'

/**
 * One event as `mcp-auth audit` prints it: time, type, result, then each field it has as
 * `name=value` (actor, user, client, resource, scopes, address group, reason, details), every
 * value terminal-safe: a username or client id chosen outside cannot drive the terminal or add lines.
 *
 * @example
 * // 2026-11-20T10:00:00.000Z  sign-in.failed  failure  user=alice  from=203.0.113.7  reason="wrong password"  factor=password
 */
export function auditLine(event: StoredAuditEvent): string {
  const fields = [event.at, event.type, event.result]
  const add = (name: string, value: string | number | boolean | readonly string[] | undefined): void => {
    if (value === undefined) return
    const text = terminalSafe(Array.isArray(value) ? value.join(' ') : String(value))
    fields.push(`${name}=${/[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text}`)
  }
  const actor = event.actor
  if (actor !== undefined) {
    add('by', actor.username ?? actor.subject ?? (actor.osUser !== undefined ? `os:${actor.osUser}` : undefined) ?? actor.clientId)
    if (actor.clientId !== undefined && (actor.username !== undefined || actor.subject !== undefined)) add('by_client', actor.clientId)
    add('via', actor.channel)
  }
  add('user', event.username ?? event.subject)
  if (event.username !== undefined) add('sub', event.subject)
  add('client', event.clientId)
  add('resource', event.resource)
  add('scopes', event.scopes)
  add('from', event.addressGroup)
  add('reason', event.reason)
  for (const [name, value] of Object.entries(event.details ?? {})) add(terminalSafe(name), value)
  add('request', event.requestId)
  return `${fields.join('  ')}\n`
}
