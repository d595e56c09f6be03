import type * as client from 'openid-client'
import { defaults } from '../../config/defaults.js'
import { tokenKeyFor } from './bearer-token-key.js'
import { discoverAuthorization, type DiscoveredAuthorization } from './discover.js'
import { dpopBinding, type DpopMode } from './dpop-mode.js'
import { MachineDpop, MachineTokenCache, machineFetch, machineScope, machineTokenKey, probeChallenge, type HeldToken } from './machine-token.js'
import type { TokenStore } from './token-store.js'

/** What every machine client (client credentials, JWT bearer) takes besides its grant's own options. */
export interface MachineAuthOptions {
  scope?: string
  fetch?: typeof fetch
  /** Keeps tokens here until they expire, for the next instance (the CLI's next run). */
  store?: TokenStore
  /**
   * When tokens are DPoP-bound (RFC 9449), as for user logins: `auto` (default) when the
   * resource's metadata says it accepts DPoP and the authorization server offers it; `always`
   * whenever the authorization server offers it; `never`: Bearer (kept beside bound tokens).
   */
  dpop?: DpopMode
}

/** A token request of one grant, as a subclass makes it. */
export interface MachineTokenRequest {
  discovered: DiscoveredAuthorization
  scope: string | undefined
  /** openid-client's DPoP option, when the token is to be bound. */
  dpop: client.DPoPOptions | undefined
}

/**
 * What the machine clients share (issue 28): `fetch` with the held token and a new one on 401,
 * `accessToken()`, tokens kept in the store until they expire, the DPoP decision, the scope.
 * A subclass names its grant and client, and makes the token request.
 */
export abstract class MachineAuth {
  readonly #serverUrl: string
  readonly #options: MachineAuthOptions
  readonly #dpop: MachineDpop
  readonly #kept: MachineTokenCache
  #token: Promise<HeldToken> | undefined
  /** The caller's fetch, for discovery and token requests. */
  protected readonly fetchImpl: typeof fetch

  constructor(serverUrl: string, options: MachineAuthOptions) {
    this.#serverUrl = serverUrl
    this.#options = options
    this.fetchImpl = options.fetch ?? globalThis.fetch
    this.#dpop = new MachineDpop(options.store)
    this.#kept = new MachineTokenCache(options.store, this.#dpop)
  }

  readonly fetch: typeof fetch = machineFetch(
    (input, init) => this.fetchImpl(input, init),
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
    this.#token ??= probeChallenge(this.fetchImpl, this.#serverUrl).then((challenge) => this.#obtain(challenge, undefined))
    return this.#token
  }

  /** The grant and client id its tokens are kept under. */
  protected abstract keptAs(): { grant: string; clientId: string }

  /** openid-client's configuration of this client at the discovered authorization server. */
  protected abstract configuration(server: client.ServerMetadata): Promise<client.Configuration>

  /** The token request of the grant. */
  protected abstract request(config: client.Configuration, request: MachineTokenRequest): Promise<client.TokenEndpointResponse>

  async #obtain(challenge: string | null, refused: HeldToken | undefined): Promise<HeldToken> {
    const discovered = await discoverAuthorization(this.#serverUrl, challenge, this.fetchImpl)
    const { server, resource } = discovered
    const mode = this.#options.dpop ?? defaults.oauthClient.dpop
    const bind = dpopBinding(mode, discovered, server)
    const { grant, clientId } = this.keptAs()
    const key = await tokenKeyFor(this.#options.store, mode, server.issuer, machineTokenKey(resource, grant, clientId))
    if (refused !== undefined) await this.#kept.delete(server.issuer, key)
    else {
      const kept = await this.#kept.get(server.issuer, key)
      if (kept !== undefined) return kept
    }
    const config = await this.configuration(server)
    const scope = machineScope(this.#options.scope, challenge, refused, discovered.scope)
    const { key: dpopKey, options } = await this.#dpop.forRequest(server, config, bind)
    const response = await this.request(config, { discovered, scope, dpop: options })
    await this.#kept.set(server.issuer, key, response, scope)
    return MachineDpop.held(response, dpopKey, scope)
  }
}
