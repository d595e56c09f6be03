import { terminalSafe } from './terminal-safe.js'

/**
 * A refusal of the admin API, from its problem details (RFC 9457): what failed (`detail`), the
 * status and the kind (`type`, `urn:mcp-auth:admin:<kind>`), and the admin error code when the
 * server gave one (`account_exists`, `last_administrator`…). Local to the CLI: printed as one
 * line, never sent anywhere.
 */
export class AdminApiError extends Error {
  override name = 'AdminApiError'
  readonly status: number
  /** The problem's kind, e.g. `not-found` (the part of `type` after `urn:mcp-auth:admin:`). */
  readonly kind: string | undefined
  /** The admin error code of the problem, when the server gave one. */
  readonly code: string | undefined

  constructor(status: number, problem: Record<string, unknown> | undefined, what: string, options?: ErrorOptions) {
    const detail = typeof problem?.['detail'] === 'string' && problem['detail'] !== '' ? problem['detail'] : typeof problem?.['title'] === 'string' ? problem['title'] : undefined
    const type = typeof problem?.['type'] === 'string' ? problem['type'] : undefined
    const named = type?.startsWith('urn:mcp-auth:admin:') === true ? type.slice('urn:mcp-auth:admin:'.length) : undefined
    // the API has no operation there at all: a server older than this CLI
    const unknownOperation = status === 404 && detail?.startsWith('no such admin API operation') === true
    const kind = unknownOperation ? 'unknown-operation' : named
    const said = unknownOperation
      ? 'the server has no such admin API operation (is it an older mcp-auth? see its openapi.json)'
      : terminalSafe(detail ?? `answered ${status} without problem details`)
    super(`${what}: ${said} (${status}${named !== undefined ? ` ${terminalSafe(named)}` : ''})`, options)
    this.status = status
    this.kind = kind
    this.code = typeof problem?.['code'] === 'string' ? problem['code'] : undefined
  }
}
