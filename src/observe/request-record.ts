import type { IncomingMessage } from 'node:http'

/**
 * What is known of one HTTP request while it is served, filled in by whoever learns it (the
 * router the route template, the bearer check the subject and client, the MCP transport the
 * method): the access line, the metrics and the span read it when the answer ends. Never a secret.
 */
export interface RequestRecord {
  /** The request id: the trusted proxy's `x-request-id` or a new one; returned in the answer's header. */
  readonly id: string
  readonly method: string
  /** `process.hrtime.bigint()` when the request arrived. */
  readonly startedAt: bigint
  /** The route template (`/token`, `/admin/api/accounts/{name}`), never the raw path; unset: not routed by us. */
  route?: string
  clientId?: string
  subject?: string
  /** The JSON-RPC method of an MCP request (the first of a batch). */
  mcpMethod?: string
  /** The tool, resource or prompt name of a tools/call, resources/read or prompts/get. */
  mcpTarget?: string
}

/** A request's record once its answer ended. */
export interface FinishedRequest {
  readonly record: RequestRecord
  readonly req: IncomingMessage
  /** The status sent (0 when the connection closed before any was). */
  readonly status: number
  readonly durationMs: number
  /** Body bytes written; measured only when a request observer asked (`needsBytes`), else 0. */
  readonly bytes: number
  /** The connection closed before the answer was complete. */
  readonly aborted: boolean
}

const RECORD = Symbol.for('mcp-auth.request-record')

/** The record of a request being observed, if it is. */
export function requestRecord(req: IncomingMessage): RequestRecord | undefined {
  return (req as IncomingMessage & { [RECORD]?: RequestRecord })[RECORD]
}

/** Attaches `record` to `req` (observeRequests does it once per request). */
export function attachRequestRecord(req: IncomingMessage, record: RequestRecord): void {
  ;(req as IncomingMessage & { [RECORD]?: RequestRecord })[RECORD] = record
}

/**
 * Notes the caller's identity on the request's record, when it is observed: the bearer check and
 * the authorization server call it once they know.
 */
export function noteCaller(req: IncomingMessage, caller: { clientId?: string | undefined; subject?: string | undefined }): void {
  const record = requestRecord(req)
  if (record === undefined) return
  if (caller.clientId !== undefined) record.clientId = caller.clientId
  if (caller.subject !== undefined) record.subject = caller.subject
}

/** Notes the route template that answered (the first one noted wins: the outermost router knows best). */
export function noteRoute(req: IncomingMessage, route: string): void {
  const record = requestRecord(req)
  if (record !== undefined && record.route === undefined) record.route = route
}
