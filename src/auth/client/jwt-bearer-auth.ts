import { readFile } from 'node:fs/promises'
import * as client from 'openid-client'
import { clientConfiguration } from './client-configuration.js'
import { clientSecretBasic } from './client-secret-basic.js'
import { discoverAuthorization } from './discover.js'
import { MachineDpop, MachineTokenCache, machineFetch, machineScope, machineTokenKey, probeChallenge, type HeldToken } from './machine-token.js'
import type { TokenStore } from './token-store.js'
import { McpOAuthError } from './mcp-oauth-error.js'

/** RFC 7523 §2.1: the grant type of a JWT used as an authorization grant. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

export interface JwtBearerOptions {
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
  scope?: string
  fetch?: typeof fetch
  /**
   * Keeps tokens here until they expire, for the next instance (the CLI's next run): a one-time
   * assertion (its `jti`) is then presented once, not again by every run.
   */
  store?: TokenStore
}

/**
 * Workload access: a JWT the workload's platform issued (a Kubernetes service account token, a
 * cloud identity token…) exchanged for an access token with the JWT bearer grant (RFC 7523 §2.1,
 * MCP workload identity federation), discovery as for user logins, `resource` bound to the
 * server, DPoP when the authorization server offers it. A refused grant (`invalid_grant`,
 * `invalid_scope`, `unauthorized_client`) is an {@link McpOAuthError} with the server's words,
 * never retried nor turned into another grant: a new assertion is what would change the answer.
 *
 * @example
 * const auth = new JwtBearerAuth('https://mcp.example.com/mcp', { assertionFile: '/var/run/secrets/tokens/mcp' })
 * await client.connect(new StreamableHttpClientTransport(url, { fetch: auth.fetch }))
 */
export class JwtBearerAuth {
  readonly #serverUrl: string
  readonly #options: JwtBearerOptions
  readonly #fetch: typeof fetch
  readonly #dpop: MachineDpop
  readonly #kept: MachineTokenCache
  #token: Promise<HeldToken> | undefined

  constructor(serverUrl: string, options: JwtBearerOptions) {
    const sources = [options.assertion, options.assertionFile, options.assertionEnv].filter((source) => source !== undefined)
    if (sources.length !== 1) throw new TypeError('JwtBearerAuth needs exactly one of assertion, assertionFile, assertionEnv')
    this.#serverUrl = serverUrl
    this.#options = options
    this.#fetch = options.fetch ?? globalThis.fetch
    this.#dpop = new MachineDpop(options.store)
    this.#kept = new MachineTokenCache(options.store, this.#dpop)
  }

  readonly fetch: typeof fetch = machineFetch(
    (input, init) => this.#fetch(input, init),
    {
      get: () => this.#token,
      set: (token) => {
        this.#token = token
      },
    },
    (challenge, refused) => this.#obtain(challenge, refused),
  )

  /** The access token (a kept one while it is valid), without a request to the MCP server. */
  accessToken(): Promise<HeldToken> {
    this.#token ??= probeChallenge(this.#fetch, this.#serverUrl).then((challenge) => this.#obtain(challenge, undefined))
    return this.#token
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

  async #obtain(challenge: string | null, refused: HeldToken | undefined): Promise<HeldToken> {
    const discovered = await discoverAuthorization(this.#serverUrl, challenge, this.#fetch)
    const { server, resource } = discovered
    const { clientId, clientSecret } = this.#options
    const kept = machineTokenKey(resource, JWT_BEARER_GRANT, clientId ?? '')
    if (refused !== undefined) await this.#kept.delete(server.issuer, kept)
    else {
      const held = await this.#kept.get(server.issuer, kept)
      if (held !== undefined) return held
    }
    const auth = clientSecret !== undefined ? clientSecretBasic(clientSecret) : client.None()
    const config = clientConfiguration(server, clientId ?? '', auth, this.#fetch)
    const scope = machineScope(this.#options.scope, challenge, refused, discovered.scope)
    const { key, options } = await this.#dpop.forRequest(server, config)
    const parameters: Record<string, string> = { assertion: await this.#assertion(), resource, ...(scope !== undefined ? { scope } : {}) }
    try {
      const response = await client.genericGrantRequest(config, JWT_BEARER_GRANT, parameters, options)
      await this.#kept.set(server.issuer, kept, response, scope)
      return MachineDpop.held(response, key, scope)
    } catch (error) {
      const { error: code, error_description: description } = error as { error?: unknown; error_description?: unknown }
      const said = typeof code === 'string' ? `${code}${typeof description === 'string' && description !== '' ? `: ${description}` : ''}` : (error as Error).message
      throw new McpOAuthError('token', `${server.issuer} refused the JWT bearer grant: ${said}`, { cause: error })
    }
  }
}
