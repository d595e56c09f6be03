import * as client from 'openid-client'
import { importPKCS8 } from 'jose'
import { clientSecretBasic } from './client-secret-basic.js'
import { MachineDpop, MachineTokenCache, machineFetch, machineScope, machineTokenKey, probeChallenge, type HeldToken } from './machine-token.js'
import type { TokenStore } from './token-store.js'
import { discoverAuthorization, type DiscoveredAuthorization } from './discover.js'
import { clientConfiguration } from './client-configuration.js'

export interface ClientCredentialsOptions {
  clientId: string
  /** client_secret_basic when set… */
  clientSecret?: string
  /** …or private_key_jwt with this PKCS#8 PEM key. */
  privateKeyPem?: string
  /** JWS algorithm of the assertion (default ES256). */
  algorithm?: string
  scope?: string
  fetch?: typeof fetch
  /** Keeps tokens here until they expire, for the next instance (the CLI's next run). */
  store?: TokenStore
}

/**
 * Machine-to-machine access: the client credentials grant (RFC 6749 §4.4) for an MCP server,
 * with a client secret or a private_key_jwt assertion (RFC 7523), discovery as for user logins,
 * `resource` bound to the server. `fetch` adds the token and gets a new one on 401. When the
 * authorization server lists our DPoP algorithm, tokens are DPoP-bound (RFC 9449) to a key this
 * instance makes and keeps in memory, or the token store's key when `store` keeps the tokens.
 */
export class ClientCredentialsAuth {
  readonly #serverUrl: string
  readonly #options: ClientCredentialsOptions
  readonly #fetch: typeof fetch
  #token: Promise<HeldToken> | undefined
  readonly #dpop: MachineDpop
  readonly #kept: MachineTokenCache

  constructor(serverUrl: string, options: ClientCredentialsOptions) {
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

  async #obtain(challenge: string | null, refused: HeldToken | undefined): Promise<HeldToken> {
    const discovered: DiscoveredAuthorization = await discoverAuthorization(this.#serverUrl, challenge, this.#fetch)
    const { clientId, clientSecret, privateKeyPem, algorithm = 'ES256' } = this.#options
    const key = machineTokenKey(discovered.resource, 'client_credentials', clientId)
    if (refused !== undefined) await this.#kept.delete(discovered.server.issuer, key)
    else {
      const kept = await this.#kept.get(discovered.server.issuer, key)
      if (kept !== undefined) return kept
    }
    const auth = privateKeyPem !== undefined ? client.PrivateKeyJwt(await importPKCS8(privateKeyPem, algorithm)) : clientSecretBasic(clientSecret ?? '')
    const config = clientConfiguration(discovered.server, clientId, auth, this.#fetch)
    const scope = machineScope(this.#options.scope, challenge, refused, discovered.scope)
    const { key: dpopKey, options } = await this.#dpop.forRequest(discovered.server, config)
    const response = await client.clientCredentialsGrant(config, { resource: discovered.resource, ...(scope !== undefined ? { scope } : {}) }, options)
    await this.#kept.set(discovered.server.issuer, key, response, scope)
    return MachineDpop.held(response, dpopKey, scope)
  }
}
