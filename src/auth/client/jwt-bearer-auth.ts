import { readFile } from 'node:fs/promises'
import * as client from 'openid-client'
import { clientConfiguration } from './client-configuration.js'
import { clientSecretBasic } from './client-secret-basic.js'
import { MachineAuth, type MachineAuthOptions, type MachineTokenRequest } from './machine-auth.js'
import { McpOAuthError } from './mcp-oauth-error.js'

/** RFC 7523 §2.1: the grant type of a JWT used as an authorization grant. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

export interface JwtBearerOptions extends MachineAuthOptions {
  /** The assertion: a JWT, or a function giving one (called each time a token is needed). */
  assertion?: string | (() => string | Promise<string>)
  /** …or a file holding it (read each time: a workload's token is rotated in place). */
  assertionFile?: string
  /** …or an environment variable holding it (read each time). */
  assertionEnv?: string
  /** The client id (sent as `client_id`, or in the Basic header with the secret). */
  clientId?: string
  /** Authenticates the client with client_secret_basic. */
  clientSecret?: string
}

/**
 * Workload access: a JWT the workload's platform issued (a Kubernetes service account token, a
 * cloud identity token…) exchanged for an access token with the JWT bearer grant (RFC 7523 §2.1,
 * MCP workload identity federation), discovery as for user logins, `resource` bound to the
 * server, DPoP as the `dpop` option says (default: when the resource's metadata and the
 * authorization server both offer it). Tokens kept in `store` until they expire: a one-time
 * assertion (its `jti`) is then presented once, not again by every run. A refused grant
 * (`invalid_grant`, `invalid_scope`, `unauthorized_client`) is an {@link McpOAuthError} with the
 * server's words, never retried nor turned into another grant: a new assertion is what would
 * change the answer.
 *
 * @example
 * const auth = new JwtBearerAuth('https://mcp.example.com/mcp', { assertionFile: '/var/run/secrets/tokens/mcp' })
 * await client.connect(new StreamableHttpClientTransport(url, { fetch: auth.fetch }))
 */
export class JwtBearerAuth extends MachineAuth {
  readonly #options: JwtBearerOptions

  constructor(serverUrl: string, options: JwtBearerOptions) {
    const sources = [options.assertion, options.assertionFile, options.assertionEnv].filter((source) => source !== undefined)
    if (sources.length !== 1) throw new TypeError('JwtBearerAuth needs exactly one of assertion, assertionFile, assertionEnv')
    super(serverUrl, options)
    this.#options = options
  }

  protected keptAs(): { grant: string; clientId: string } {
    return { grant: JWT_BEARER_GRANT, clientId: this.#options.clientId ?? '' }
  }

  protected async configuration(server: client.ServerMetadata): Promise<client.Configuration> {
    const { clientId, clientSecret } = this.#options
    return clientConfiguration(server, clientId ?? '', clientSecret !== undefined ? clientSecretBasic(clientSecret) : client.None(), this.fetchImpl)
  }

  protected async request(config: client.Configuration, { discovered, scope, dpop }: MachineTokenRequest): Promise<client.TokenEndpointResponse> {
    const parameters: Record<string, string> = { assertion: await this.#assertion(), resource: discovered.resource, ...(scope !== undefined ? { scope } : {}) }
    try {
      return await client.genericGrantRequest(config, JWT_BEARER_GRANT, parameters, dpop)
    } catch (error) {
      const { error: code, error_description: description } = error as { error?: unknown; error_description?: unknown }
      const said = typeof code === 'string' ? `${code}${typeof description === 'string' && description !== '' ? `: ${description}` : ''}` : (error as Error).message
      throw new McpOAuthError('token', `${discovered.server.issuer} refused the JWT bearer grant: ${said}`, { cause: error })
    }
  }

  async #assertion(): Promise<string> {
    const { assertion, assertionFile, assertionEnv } = this.#options
    let value: string | undefined
    if (assertionFile !== undefined) value = await readFile(assertionFile, 'utf8')
    else if (assertionEnv !== undefined) value = process.env[assertionEnv]
    else value = typeof assertion === 'function' ? await assertion() : assertion
    value = value?.trim()
    if (value === undefined || value === '') {
      throw new McpOAuthError(
        'token',
        `no assertion for the JWT bearer grant${assertionFile !== undefined ? ` in ${assertionFile}` : assertionEnv !== undefined ? ` in $${assertionEnv}` : ''}`,
      )
    }
    return value
  }
}
