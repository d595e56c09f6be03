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
    const kind = type?.startsWith('urn:mcp-auth:admin:') === true ? type.slice('urn:mcp-auth:admin:'.length) : undefined
    super(`${what}: ${detail ?? `answered ${status} without problem details`} (${status}${kind !== undefined ? ` ${kind}` : ''})`, options)
    this.status = status
    this.kind = kind
    this.code = typeof problem?.['code'] === 'string' ? problem['code'] : undefined
  }
}
