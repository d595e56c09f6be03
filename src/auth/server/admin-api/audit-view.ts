import type { StoredAuditEvent } from '../../../observe/audit-event.js'

/** An audit event as the admin API shows it (snake_case, the wire spelling). */
export interface AuditEventView {
  id: string
  at: string
  node: string
  type: string
  result: string
  reason?: string
  actor?: { subject?: string; username?: string; client_id?: string; os_user?: string; channel?: string }
  subject?: string
  username?: string
  client_id?: string
  resource?: string
  scopes?: readonly string[]
  address_group?: string
  request_id?: string
  details?: Readonly<Record<string, unknown>>
}

/** The view of a stored event: every field it has, renamed, nothing added. */
export function auditEventView(event: StoredAuditEvent): AuditEventView {
  const actor = event.actor
  return {
    id: event.id,
    at: event.at,
    node: event.node,
    type: event.type,
    result: event.result,
    ...(event.reason !== undefined ? { reason: event.reason } : {}),
    ...(actor !== undefined
      ? {
          actor: {
            ...(actor.subject !== undefined ? { subject: actor.subject } : {}),
            ...(actor.username !== undefined ? { username: actor.username } : {}),
            ...(actor.clientId !== undefined ? { client_id: actor.clientId } : {}),
            ...(actor.osUser !== undefined ? { os_user: actor.osUser } : {}),
            ...(actor.channel !== undefined ? { channel: actor.channel } : {}),
          },
        }
      : {}),
    ...(event.subject !== undefined ? { subject: event.subject } : {}),
    ...(event.username !== undefined ? { username: event.username } : {}),
    ...(event.clientId !== undefined ? { client_id: event.clientId } : {}),
    ...(event.resource !== undefined ? { resource: event.resource } : {}),
    ...(event.scopes !== undefined ? { scopes: event.scopes } : {}),
    ...(event.addressGroup !== undefined ? { address_group: event.addressGroup } : {}),
    ...(event.requestId !== undefined ? { request_id: event.requestId } : {}),
    ...(event.details !== undefined ? { details: event.details } : {}),
  }
}

/** The stored event of a view (what `mcp-auth audit --server` reads back). */
export function auditEventOfView(view: AuditEventView): StoredAuditEvent {
  const actor = view.actor
  return {
    id: view.id,
    at: view.at,
    node: view.node,
    type: view.type as StoredAuditEvent['type'],
    result: view.result as StoredAuditEvent['result'],
    ...(view.reason !== undefined ? { reason: view.reason } : {}),
    ...(actor !== undefined
      ? {
          actor: {
            ...(actor.subject !== undefined ? { subject: actor.subject } : {}),
            ...(actor.username !== undefined ? { username: actor.username } : {}),
            ...(actor.client_id !== undefined ? { clientId: actor.client_id } : {}),
            ...(actor.os_user !== undefined ? { osUser: actor.os_user } : {}),
            ...(actor.channel !== undefined ? { channel: actor.channel as NonNullable<StoredAuditEvent['actor']>['channel'] & string } : {}),
          },
        }
      : {}),
    ...(view.subject !== undefined ? { subject: view.subject } : {}),
    ...(view.username !== undefined ? { username: view.username } : {}),
    ...(view.client_id !== undefined ? { clientId: view.client_id } : {}),
    ...(view.resource !== undefined ? { resource: view.resource } : {}),
    ...(view.scopes !== undefined ? { scopes: view.scopes } : {}),
    ...(view.address_group !== undefined ? { addressGroup: view.address_group } : {}),
    ...(view.request_id !== undefined ? { requestId: view.request_id } : {}),
    ...(view.details !== undefined ? { details: view.details as StoredAuditEvent['details'] & object } : {}),
  }
}
