import { defaults } from '../config/defaults.js'
import { HttpTransportError } from '../transports/http/http-transport-error.js'
import type { CliAuth } from './cli-auth.js'

/**
 * Runs an MCP exchange with the browser logins it needs outside it. A request the server refused
 * for want of a login (401) or of scope (403 insufficient_scope) fails; the login it asked for
 * runs with its own limit ("login not completed within 5 min"), then the exchange runs again
 * with fresh request timeouts. The refused request was not carried out, so sending it again is
 * safe. At most one login plus `maxStepUps` step-ups per exchange, as in the login helper.
 */
export async function withLogin<T>(auth: CliAuth, exchange: () => Promise<T>): Promise<T> {
  for (let logins = 0; ; logins++) {
    try {
      return await exchange()
    } catch (error) {
      const refused = error instanceof HttpTransportError && (error.status === 401 || error.status === 403)
      if (!refused || logins > defaults.oauthClient.maxStepUps || !(await auth.loginAsked())) throw error
    }
  }
}
