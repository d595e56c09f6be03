/**
 * The security events of the audit trail (docs/operations.md lists them), each recorded once by
 * the flow that decides it. The names are stable: an operator's queries and alerts match them.
 */
export const AUDIT_EVENT_TYPES = [
  // sign-in, per factor (`details.factor`: password, upstream…)
  'sign-in.succeeded',
  'sign-in.failed',
  'sign-in.rate-limited',
  'consent.given',
  'consent.denied',
  // a token endpoint answer (`details.grant_type`), issued or refused
  'token.issued',
  'token.refused',
  'refresh-token.reuse-detected',
  'grant.revoked',
  'account.created',
  'account.changed',
  'account.disabled',
  'account.enabled',
  'account.deleted',
  'account.role-changed',
  'account.password-link-created',
  'client.registered',
  'client.blocked',
  'client.unblocked',
  'client.removed',
  'resource.added',
  'resource.changed',
  'resource.removed',
  'keys.rotated',
  'dpop.replay-refused',
  'assertion.replay-refused',
  'gateway.child-started',
  'gateway.child-ended',
  'gateway.child-crashed',
  'gateway.child-ended-by-admin',
  // a tools/call (or resources/read, prompts/get) at a protected MCP endpoint
  'mcp.call-allowed',
  'mcp.call-refused',
  'mcp.rate-limited',
] as const

export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number]

/**
 * The grant types an event (`details.grant_type`) and a metric's label name as they are: the ones
 * oidc-provider and our JWT bearer grant serve, and those an extension may add. Any other is
 * recorded as `other`: outside input never becomes an unbounded value.
 */
export const AUDIT_GRANT_TYPES: ReadonlySet<string> = new Set([
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:openid:params:grant-type:ciba',
])

/** How an actor reached us: the surface an administration action came through. */
export type AuditChannel = 'http' | 'admin-api' | 'console' | 'cli-local' | 'cli-redis' | 'gateway' | 'mcp'

/**
 * Who did it. A person signed in (`subject`, `username`), a client acting for one or for itself
 * (`clientId`), or an operator at a shell (`osUser`, with the CLI's local-file or Redis mode).
 */
export interface AuditActor {
  subject?: string
  username?: string
  clientId?: string
  osUser?: string
  channel?: AuditChannel
}

/**
 * One security event as a flow reports it. Never a secret: no token, code, password, assertion,
 * proof or cookie, whole or in part (identifiers only: a subject, a client id, a grant id hash…).
 */
export interface AuditEvent {
  type: AuditEventType
  /** `success` (it happened), `failure` (it was tried and did not), `refused` (a rule said no). */
  result: 'success' | 'failure' | 'refused'
  /** Why, for failures and refusals: a fixed phrase or an OAuth error code, never outside input. */
  reason?: string
  actor?: AuditActor
  /** The account it is about (its subject), when not the actor. */
  subject?: string
  /** Its username, when known. */
  username?: string
  clientId?: string
  resource?: string
  scopes?: readonly string[]
  /** The client's address group (an IPv4 address, an IPv6 /64): who, on the network. */
  addressGroup?: string
  /** The request it came from (the `x-request-id` the client was answered). */
  requestId?: string
  /** Anything else the event names (grant type, tool name, duration…): plain values. */
  details?: Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>
}

/** An event as stored: stamped with when, where and a sortable id. */
export interface StoredAuditEvent extends AuditEvent {
  /** Sortable and unique within the trail (a Redis stream id, or time + sequence in the file). */
  id: string
  /** ISO 8601 time it was recorded. */
  at: string
  /** The node that recorded it (host name and pid), so a deployment's trail says where. */
  node: string
}

/** What `mcp-auth audit` and the admin API ask the trail for. */
export interface AuditQuery {
  /** Events at or after this time (ms since the epoch). */
  since?: number
  until?: number
  /** A username or subject, as actor or as the account it is about. */
  user?: string
  clientId?: string
  /** Event types, or prefixes ending in `.` (`sign-in.`). */
  types?: readonly string[]
  /** At most this many, newest first. */
  limit?: number
}

/**
 * Where events are kept, append-only: a JSON-lines file in the data directory on one node, a
 * capped Redis stream on a deployment. `append` never throws into the flow that reports: a store
 * that fails counts the loss (`lost()`) and says so in the log.
 */
export interface AuditTrail {
  append(event: StoredAuditEvent): void
  /** Matching events, newest first. */
  query(query: AuditQuery): Promise<StoredAuditEvent[]>
  /** Calls `onEvent` with each matching event appended from now on (every node's, on Redis) until `signal` aborts. */
  follow(query: AuditQuery, onEvent: (event: StoredAuditEvent) => void, signal: AbortSignal): Promise<void>
  /** Waits until every event appended so far is stored. */
  flushed(): Promise<void>
  close(): Promise<void>
}
