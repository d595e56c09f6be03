import type { HeldToken } from '../auth/client/machine-token.js'
import type { McpOAuth } from '../auth/client/mcp-oauth.js'

/** What the client commands need of an authentication: the login helper's, or a machine's. */
export type CliAuth = Pick<McpOAuth, 'fetch' | 'ensureLogin' | 'loginAsked'> & {
  /**
   * A machine's token (client credentials, JWT bearer), without a browser; absent for a user
   * login, and resolving to undefined when a confidential client turned out to need one.
   */
  machineToken?: () => Promise<HeldToken | undefined>
}
