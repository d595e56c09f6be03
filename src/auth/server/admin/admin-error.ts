/** What an administration operation refused: a stable code beside the message an operator reads. */
export type AdminErrorCode =
  /** The client comes from the server's options: it is removed from the configuration, not here. */
  | 'configured_client'
  /** A client with this `client_id` is registered already. */
  | 'client_exists'
  /** No account has this username. */
  | 'unknown_account'
  /** An account with this username exists already. */
  | 'account_exists'
  /** The demo account (`demo`, whose password `mcp-auth start` prints and MCP_AUTH_DEMO_PASSWORD sets) is never an administrator. */
  | 'demo_account'
  /** The change would leave the server with no active administrator. */
  | 'last_administrator'
  /** The item changed since the version the change was made on. */
  | 'stale'
  /** No client has this client_id. */
  | 'unknown_client'
  /** A username, password or value the store does not accept. */
  | 'invalid'

/**
 * A refused administration operation (`mcp-auth clients`, `users`, `grants`; the coming admin API).
 * A local error: each surface says it in its own words (the CLI prints the message), and `code`
 * lets a surface tell the refusals apart without reading the message.
 */
export class AdminError extends Error {
  override name = 'AdminError'
  readonly code: AdminErrorCode

  constructor(code: AdminErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.code = code
  }
}
