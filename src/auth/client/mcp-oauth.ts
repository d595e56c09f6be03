import * as oauth from 'oauth4webapi'
import * as client from 'openid-client'
import { defaults } from '../../config/defaults.js'
import { discoverAuthorization, discoverResourceMetadata, namedAuthorization, type DiscoveredAuthorization } from './discover.js'
import { describingFetch } from './describe-fetch-error.js'
import { resourceIdentifiesServer } from './resource-identifies-server.js'
import { clientSecretBasic } from './client-secret-basic.js'
import { clientConfiguration } from './client-configuration.js'
import { fetchWithBearer } from './fetch-with-bearer.js'
import { DpopKey, fetchWithDpop, generateDpopKey } from './dpop.js'
import { startLoopbackCallback } from './loopback-callback.js'
import { challengeParams } from './parse-www-authenticate.js'
import { dpopBinding, type DpopMode } from './dpop-mode.js'
import { isTokenKeyOf, tokenKeyFor } from './bearer-token-key.js'
import type { StoredClient, StoredTokens, TokenStore } from './token-store.js'
import { isLoopbackUrl } from '../../config/loopback-hosts.js'
import { McpOAuthError } from './mcp-oauth-error.js'
import { checkResponseIssuer } from './check-response-issuer.js'
import { applicationType } from './application-type.js'
import { requestedScope } from './requested-scope.js'
import { siblingGrants } from './sibling-grants.js'

/** How the user is sent to the authorization URL: open a browser, print it, or (in tests) drive it. */
export type Handoff = (authorizationUrl: URL) => Promise<void> | void

export interface McpOAuthOptions {
  store: TokenStore
  /** Sends the user to the login page (the CLI opens a browser and prints the URL). */
  handoff: Handoff
  /** Shown on the consent page. */
  clientName?: string
  /** Pre-registered credentials per issuer (tried first). */
  clients?: Record<string, { client_id: string; client_secret?: string }>
  /** Pre-registered credentials for whatever issuer this server uses (the CLI's --client-id). */
  anyIssuerClient?: { client_id: string; client_secret?: string }
  /** An https URL where this client's metadata document is published (used when the AS supports CIMD). */
  clientMetadataDocument?: string
  /** How long (ms) a login waits for the browser to come back; default `callbackTimeoutMs` (5 min). */
  loginTimeoutMs?: number
  /** Preferred loopback callback port (0: ephemeral); `strictCallbackPort` refuses to move. */
  callbackPort?: number
  strictCallbackPort?: boolean
  fetch?: typeof fetch
  /**
   * Aborting ends a login that waits for the browser: the loopback listener closes and the login
   * rejects with McpOAuthError `cancelled` ("login cancelled"). The CLI aborts it on Ctrl-C.
   */
  signal?: AbortSignal
  /**
   * Keep browser logins out of `fetch`. A request that needs one (a 401 that no stored or
   * refreshed token answers, a 403 insufficient_scope) gets that refusal back, and
   * `loginAsked()` runs the login it asked for; the caller then sends the request again (the
   * server refused it, so it was not carried out). For callers whose requests have timeouts:
   * the browser wait, with its own limit (`callbackTimeoutMs`), then does not count against
   * them. Default false: `fetch` logs in and sends the request again itself.
   */
  loginOutsideFetch?: boolean
  /**
   * When tokens are DPoP-bound (RFC 9449): `auto` (default) when the resource's metadata says it
   * accepts DPoP (RFC 9728 `dpop_signing_alg_values_supported`, `dpop_bound_access_tokens_required`)
   * and the authorization server offers it, else Bearer; `always` whenever the authorization
   * server offers it (an McpOAuthError `dpop` when it does not); `never`: Bearer (an McpOAuthError
   * `dpop` when the resource requires DPoP), kept beside any bound tokens of the same resource.
   * Tokens already bound keep being refreshed with proofs.
   */
  dpop?: DpopMode
  /** Told after each login: the scope granted and the scopes asked for and not granted. */
  onLogin?: (login: LoginOutcome) => void
}

/** What a finished login got: the granted scope, and the scopes asked for that it did not get. */
export interface LoginOutcome {
  resource: string
  scope?: string
  notGranted: string[]
}

/** The login a refused request asked for: the challenge it came with, the wider scope it needs, a fresher sign-in. */
interface AskedLogin {
  scope?: string
  challenge: string | null
  /** RFC 9470 `max_age` (seconds): the sign-in must be at most this old. */
  maxAge?: number
  /** RFC 9470 `acr_values`: the authentication context classes asked for. */
  acrValues?: string
}

/**
 * The client side of MCP authorization for one MCP server: an authenticated `fetch` for the HTTP
 * transports that turns a 401 into a finished login (discovery, registration, PKCE, browser
 * hand-off with a loopback callback, token exchange, storage), refreshes before expiry (one
 * refresh at a time, across processes), and steps up on 403 insufficient_scope. Follows the
 * MCP 2026-07-28 authorization rules: metadata issuer and resource checked, RFC 9207 `iss`
 * checked, credentials and tokens bound to the authorization server's issuer.
 *
 * @example
 * const auth = new McpOAuth('https://mcp.example.com/mcp', { store: new FileTokenStore(), handoff: openBrowser })
 * const transport = new StreamableHttpClientTransport(url, { fetch: auth.fetch })
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 */
export class McpOAuth {
  readonly #serverUrl: string
  readonly #options: McpOAuthOptions
  readonly #fetch: typeof fetch
  #discovered: DiscoveredAuthorization | undefined
  /** The challenge the discovery above was made for (a new challenge may name other metadata or scopes). */
  #discoveredFor: string | null = null
  #login: Promise<StoredTokens> | undefined
  /** With `loginOutsideFetch`: the login the last refused request asked for, until `loginAsked()` runs it. */
  #asked: AskedLogin | undefined
  /** The issuer the any-issuer pre-registered client was first used at. */
  #anyIssuerClientAt: string | undefined
  /**
   * Where this server's tokens are kept, as its own resource metadata says (no authorization
   * server asked): lets a valid stored token be used while the authorization server is down.
   */
  #bound: { issuer: string; resource: string } | undefined
  /** DPoP keys by issuer, loaded (or made and stored) once. */
  readonly #dpopKeys = new Map<string, Promise<DpopKey>>()

  readonly #dpopMode: DpopMode

  constructor(serverUrl: string, options: McpOAuthOptions) {
    this.#serverUrl = serverUrl
    this.#options = options
    this.#dpopMode = options.dpop ?? defaults.oauthClient.dpop
    // failures name the host and the reason ("connection refused (localhost:4000)"), not "fetch failed"
    this.#fetch = describingFetch(options.fetch ?? globalThis.fetch)
  }

  /** The authenticated fetch to hand to a transport. */
  readonly fetch: typeof fetch = async (input, init) => {
    let tokens = await this.#currentTokens()
    let response = await this.#send(input, init, tokens)
    // a sign-in too old (RFC 9470) is not answered by a refresh: the refreshed token keeps its auth_time
    if (response.status === 401 && stepUpAsked(response, tokens) === undefined) {
      const recovered = await this.#recover(tokens, response.headers.get('www-authenticate'))
      if (recovered === undefined) return response
      await response.body?.cancel()
      tokens = recovered
      response = await this.#send(input, init, tokens)
    }
    for (let stepUps = 0; stepUps < defaults.oauthClient.maxStepUps; stepUps++) {
      const asked = stepUpAsked(response, tokens)
      if (asked === undefined) break
      const stepUp = await this.#loginInFetch(asked)
      if (stepUp === undefined) return response
      await response.body?.cancel()
      tokens = stepUp
      response = await this.#send(input, init, tokens)
    }
    return response
  }

  /**
   * With `loginOutsideFetch`: runs the login that a refused request asked for since the last
   * one, if any. True when a login ran (send the refused request again), false when none was
   * asked for.
   */
  async loginAsked(): Promise<boolean> {
    const asked = this.#asked
    if (asked === undefined) return false
    this.#asked = undefined
    await this.login(asked)
    return true
  }

  /**
   * Logs in now unless a usable token is stored or the server lets us in without one (it does not
   * answer 401): a command line runs the browser wait before its first MCP request, so that
   * request's timeout does not run out during the login.
   */
  async ensureLogin(): Promise<void> {
    if ((await this.#currentTokens()) !== undefined) return
    const challenge = await this.#probe()
    if (challenge === null) return
    if ((await this.#fromSibling(challenge)) !== undefined) return
    await this.login({ challenge })
  }

  /** Runs the whole login now (or joins one in progress) and stores the tokens. */
  login(options: { scope?: string; challenge?: string | null; maxAge?: number; acrValues?: string } = {}): Promise<StoredTokens> {
    this.#login ??= this.#authorize(options).finally(() => {
      this.#login = undefined
    })
    return this.#login
  }

  /**
   * The stored tokens for this server, if any: found through its resource metadata (which names
   * the authorization server), so no authorization server is asked.
   */
  async storedTokens(): Promise<StoredTokens | undefined> {
    const { issuer, resource } = await this.#binding()
    return this.#options.store.getTokens(issuer, await this.#key(issuer, resource))
  }

  /** The store key of this instance's tokens for a resource: its own, or beside bound ones for `dpop: 'never'`. */
  #key(issuer: string, resource: string): Promise<string> {
    return tokenKeyFor(this.#options.store, this.#dpopMode, issuer, resource)
  }

  /** Forgets this server's tokens (the registration stays, keyed by issuer). */
  async logout(): Promise<void> {
    const { issuer, resource } = await this.#binding()
    const { store } = this.#options
    await store.deleteTokens(issuer, resource)
    // and the tokens kept beside them: Bearer ones for scripts, machine tokens (client credentials, JWT bearer)
    for (const entry of await store.list()) {
      if (entry.issuer === issuer && isTokenKeyOf(entry.resource, resource)) await store.deleteTokens(issuer, entry.resource)
    }
  }

  /**
   * An access token for this server, for a script or another tool: the stored one while valid,
   * refreshed when due, after a login when there is none and the server asks for one.
   */
  async accessToken(): Promise<string | undefined> {
    await this.ensureLogin()
    return (await this.#currentTokens())?.access_token
  }

  /** Where this server's tokens are kept: its resource metadata, else full discovery. */
  async #binding(): Promise<{ issuer: string; resource: string }> {
    this.#bound ??= await this.#boundByResourceMetadata()
    if (this.#bound !== undefined) return this.#bound
    const discovered = await this.#discover(null)
    return { issuer: discovered.server.issuer, resource: discovered.resource }
  }

  async #send(input: Parameters<typeof fetch>[0], init: RequestInit | undefined, tokens: StoredTokens | undefined): Promise<Response> {
    const issuer = this.#discovered?.server.issuer ?? this.#bound?.issuer
    if (tokens !== undefined && tokens.token_type?.toLowerCase() === 'dpop' && issuer !== undefined) {
      return fetchWithDpop(this.#fetch, input, init, tokens.access_token, await this.#dpopKey(issuer))
    }
    return fetchWithBearer(this.#fetch, input, init, tokens?.access_token)
  }

  /** The DPoP key for an issuer: the stored one, else a new one stored (one per issuer, kept with the tokens). */
  #dpopKey(issuer: string): Promise<DpopKey> {
    let key = this.#dpopKeys.get(issuer)
    if (key === undefined) {
      const store = this.#options.store
      const stored = store.dpopKey !== undefined ? store.dpopKey(issuer, () => generateDpopKey()) : generateDpopKey()
      key = stored.then((found) => DpopKey.load(found))
      // a failure is not remembered: the next request tries again
      key.catch(() => this.#dpopKeys.delete(issuer))
      this.#dpopKeys.set(issuer, key)
    }
    return key
  }

  /**
   * openid-client's DPoP option for a token request: with a proof of our key when the token is to
   * be bound (RFC 9449 §5, see {@link dpopBinding}), or when the tokens being refreshed are bound.
   */
  async #dpopOption(server: oauth.AuthorizationServer, config: client.Configuration, bind: boolean): Promise<client.DPoPOptions | undefined> {
    if (!bind) return undefined
    return { DPoP: client.getDPoPHandle(config, (await this.#dpopKey(server.issuer)).keyPair) }
  }

  /** Discovery for this challenge, cached unless `fresh` (the metadata may have changed since). */
  async #discover(challenge: string | null, fresh = false): Promise<DiscoveredAuthorization> {
    if (!fresh && this.#discovered !== undefined && (challenge === null || challenge === this.#discoveredFor)) return this.#discovered
    try {
      this.#discovered = await discoverAuthorization(this.#serverUrl, challenge, this.#fetch)
      this.#discoveredFor = challenge
    } catch (error) {
      throw new McpOAuthError('discovery', `could not find how to log in to ${this.#serverUrl}: ${(error as Error).message}`, { cause: error })
    }
    return this.#discovered
  }

  /**
   * Stored tokens, refreshed first when they expire within the skew. No discovery if none are
   * stored; none either while the stored token is valid: the server's own resource metadata says
   * which authorization server's token to send, so a call works while that server is down (and a
   * resource that moved to another one gets none of the old one's tokens).
   */
  async #currentTokens(): Promise<StoredTokens | undefined> {
    const { store } = this.#options
    if (this.#discovered === undefined) {
      // Tokens from an earlier run: find the server's metadata now rather than after a 401.
      const held = (await store.list()).some((entry) => resourceIdentifiesServer(entry.resource, this.#serverUrl))
      if (!held) return undefined
      this.#bound ??= await this.#boundByResourceMetadata()
      if (this.#bound !== undefined) {
        const tokens = await store.getTokens(this.#bound.issuer, await this.#key(this.#bound.issuer, this.#bound.resource))
        if (tokens !== undefined && !refreshDue(tokens)) return tokens
      }
      await this.#discover(null)
    }
    const { server, resource } = this.#discovered!
    const tokens = await store.getTokens(server.issuer, await this.#key(server.issuer, resource))
    if (tokens === undefined || !refreshDue(tokens) || tokens.refresh_token === undefined) return tokens
    return this.#refresh(tokens).catch(() => tokens)
  }

  /** The issuer and resource this server's metadata names (the 2025-03-26 origin without metadata). */
  async #boundByResourceMetadata(): Promise<{ issuer: string; resource: string } | undefined> {
    try {
      return namedAuthorization(this.#serverUrl, await discoverResourceMetadata(this.#serverUrl, null, this.#fetch))
    } catch {
      return undefined
    }
  }

  /**
   * After a 401: refresh if we hold a refresh token (once, shared), else log in (undefined: the
   * login is left to the caller, see `loginOutsideFetch`). A refused token
   * sends discovery back to the metadata first: the resource may have moved to another
   * authorization server, whose tokens and registration are then looked up under its issuer and
   * never the old one's (MCP 2026-07-28 client-registration §Authorization Server Binding).
   */
  async #recover(held: StoredTokens | undefined, challenge: string | null): Promise<StoredTokens | undefined> {
    const discovered = await this.#discover(challenge, held !== undefined)
    const stored = await this.#options.store.getTokens(discovered.server.issuer, await this.#key(discovered.server.issuer, discovered.resource))
    // Another process (or request) already replaced the token that was refused: use the new one.
    if (stored !== undefined && held !== undefined && stored.access_token !== held.access_token) return stored
    if (stored?.refresh_token !== undefined) {
      try {
        return await this.#refresh(stored)
      } catch {
        // invalid_grant (revoked, reused) and the like: a new login
      }
    }
    const sibling = stored === undefined ? await this.#fromSibling(challenge) : undefined
    if (sibling !== undefined) return sibling
    return this.#loginInFetch({ challenge, ...(discovered.scope !== undefined ? { scope: discovered.scope } : {}) })
  }

  /** A login a request needs: now, or (with `loginOutsideFetch`) noted for `loginAsked()`, leaving the refusal to the caller. */
  async #loginInFetch(asked: AskedLogin): Promise<StoredTokens | undefined> {
    if (this.#options.loginOutsideFetch !== true) return this.login(asked)
    this.#asked = asked
    return undefined
  }

  /** One refresh at a time across processes; a refresh someone else just did is reused. */
  #refresh(stale: StoredTokens): Promise<StoredTokens> {
    const { store } = this.#options
    return store.exclusive(async () => {
      const { server, resource } = this.#discovered!
      const key = await this.#key(server.issuer, resource)
      const current = await store.getTokens(server.issuer, key)
      if (current !== undefined && current.access_token !== stale.access_token) return current
      const registration = this.#configuredClient(server.issuer) ?? (await store.getClient(server.issuer))
      if (registration === undefined || stale.refresh_token === undefined) throw new McpOAuthError('token', 'nothing to refresh with')
      const config = this.#configuration(server, registration)
      // bound tokens are refreshed with proofs (a bound refresh token needs them), Bearer ones without
      const response = await client.refreshTokenGrant(config, stale.refresh_token, { resource }, await this.#dpopOption(server, config, stale.token_type?.toLowerCase() === 'dpop'))
      const tokens = toStored(response, stale)
      await store.setTokens(server.issuer, key, tokens)
      await this.#shareRotated(server.issuer, stale.refresh_token, tokens.refresh_token)
      return tokens
    })
  }

  /**
   * One login per server (issue 28, item 2): with no tokens for this resource, a refresh token
   * held for another resource on the same origin, from the same authorization server and client,
   * is tried for this one (RFC 8707 §2.2: `resource` on a refresh request, within the grant). On
   * success the new tokens are stored under this resource and the sibling's stay; any refusal
   * (`invalid_target`: not in the grant; `invalid_grant`) is silent and a login follows. Tokens
   * of another origin are never tried, and nothing goes anywhere but the issuer's token endpoint.
   */
  async #fromSibling(challenge: string | null): Promise<StoredTokens | undefined> {
    if (this.#options.signal?.aborted === true) return undefined
    let discovered: DiscoveredAuthorization
    let bind: boolean
    try {
      discovered = await this.#discover(challenge)
      bind = dpopBinding(this.#dpopMode, discovered, discovered.server)
    } catch {
      return undefined // the login says what is wrong
    }
    const { server, resource } = discovered
    const { store } = this.#options
    if (discovered.defaultPaths) return undefined
    const registration = this.#configuredClient(server.issuer) ?? (await store.getClient(server.issuer))
    if (registration === undefined) return undefined
    const siblings = siblingGrants(await store.list(), { issuer: server.issuer, resource, clientId: registration.client_id, bound: bind })
    for (const sibling of siblings) {
      const tokens = await store
        .exclusive(async () => {
          const current = await store.getTokens(server.issuer, sibling.resource)
          if (current?.refresh_token === undefined) return undefined
          const config = this.#configuration(server, registration)
          const response = await client.refreshTokenGrant(config, current.refresh_token, { resource }, await this.#dpopOption(server, config, bind))
          const refreshed = { ...toStored(response, current), client_id: registration.client_id }
          await store.setTokens(server.issuer, await this.#key(server.issuer, resource), refreshed)
          await this.#shareRotated(server.issuer, current.refresh_token, refreshed.refresh_token)
          return refreshed
        })
        .catch(() => undefined)
      if (tokens !== undefined) return tokens
    }
    return undefined
  }

  /**
   * A refresh that rotated the refresh token spent the old one: every entry that holds it (the
   * resources of one server share a grant, issue 28) gets the new one, so none is left with a spent token.
   */
  async #shareRotated(issuer: string, spent: string | undefined, fresh: string | undefined): Promise<void> {
    if (spent === undefined || fresh === undefined || spent === fresh) return
    const { store } = this.#options
    for (const entry of await store.list()) {
      if (entry.issuer === issuer && entry.tokens.refresh_token === spent) await store.setTokens(issuer, entry.resource, { ...entry.tokens, refresh_token: fresh })
    }
  }

  /** A bare request to learn what the server asks for (its 401 challenge: scope, metadata URL). */
  async #probe(): Promise<string | null> {
    try {
      const response = await this.#fetch(this.#serverUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': defaults.oauthClient.protocolVersion },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
        signal: AbortSignal.timeout(defaults.oauthClient.requestTimeoutMs),
      })
      await response.body?.cancel()
      return response.status === 401 ? response.headers.get('www-authenticate') : null
    } catch {
      return null
    }
  }

  async #authorize(options: { scope?: string; challenge?: string | null; maxAge?: number; acrValues?: string }): Promise<StoredTokens> {
    if (this.#options.signal?.aborted === true) throw new McpOAuthError('cancelled', 'login cancelled', { cause: this.#options.signal.reason })
    const challenge = options.challenge === undefined && this.#discovered === undefined ? await this.#probe() : (options.challenge ?? null)
    const discovered = await this.#discover(challenge)
    const { server, resource } = discovered
    // decided before any login page: a refusal (DPoP asked for and not offered, or required and turned off) costs no login
    const bind = dpopBinding(this.#dpopMode, discovered, server)
    const methods = server.code_challenge_methods_supported
    if (!discovered.defaultPaths && (methods === undefined || !methods.includes('S256'))) {
      throw new McpOAuthError('authorization', `${server.issuer} does not advertise PKCE S256; refusing to log in (MCP 2025-11-25)`)
    }
    const stored = await this.#options.store.getClient(server.issuer)
    const state = client.randomState()
    const callback = await startLoopbackCallback({
      state,
      // RFC 9207: the issuer recorded with this login's verifier and state, checked on arrival
      check: (response) => checkResponseIssuer(response, server),
      port: this.#options.callbackPort ?? portOf(stored?.redirect_uris?.[0]),
      ...(this.#options.strictCallbackPort !== undefined ? { strictPort: this.#options.strictCallbackPort } : {}),
      ...(this.#options.signal !== undefined ? { signal: this.#options.signal } : {}),
      ...(this.#options.loginTimeoutMs !== undefined ? { timeoutMs: this.#options.loginTimeoutMs } : {}),
    })
    try {
      const registration = await this.#registration(server, stored, callback.redirectUri)
      const config = this.#configuration(server, registration)
      const verifier = client.randomPKCECodeVerifier()
      const stepUp = options.maxAge !== undefined || options.acrValues !== undefined
      const scope = withOpenId(requestedScope(options.scope ?? discovered.scope, server), stepUp, server)
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: callback.redirectUri,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        resource,
        ...(scope !== undefined ? { scope } : {}),
        // RFC 9470 §4: the authorization server signs the person in again when their sign-in is older
        ...(options.maxAge !== undefined ? { max_age: String(options.maxAge) } : {}),
        ...(options.acrValues !== undefined ? { acr_values: options.acrValues } : {}),
      })
      await this.#options.handoff(url)
      const returned = await callback.result.catch((error: unknown) => {
        throw this.#options.signal?.aborted === true ? new McpOAuthError('cancelled', 'login cancelled', { cause: error }) : error
      })
      let response
      try {
        response = await client.authorizationCodeGrant(
          config,
          returned,
          { pkceCodeVerifier: verifier, expectedState: state },
          { resource, redirect_uri: callback.redirectUri },
          await this.#dpopOption(server, config, bind),
        )
      } catch (error) {
        throw new McpOAuthError('authorization', `the login did not complete: ${oauthRefusal(error, server.issuer)}`, { cause: error })
      }
      const tokens = { ...toStored(response), client_id: registration.client_id }
      await this.#options.store.setTokens(server.issuer, await this.#key(server.issuer, resource), tokens)
      this.#options.onLogin?.({ resource, ...(tokens.scope !== undefined ? { scope: tokens.scope } : {}), notGranted: notGranted(scope, response.scope) })
      return tokens
    } finally {
      callback.close()
    }
  }

  /** Pre-registered → client ID metadata document → dynamic registration (MCP 2025-11-25 order). */
  async #registration(server: oauth.AuthorizationServer, stored: StoredClient | undefined, redirectUri: string): Promise<StoredClient> {
    const { store } = this.#options
    const configured = this.#configuredClient(server.issuer)
    if (configured !== undefined) return configured
    // A registration is reused across launches; loopback redirect URIs match on any port (RFC 8252 §7.3).
    if (stored !== undefined && (stored.source !== 'dynamic' || stored.redirect_uris?.some((uri) => sameLoopbackPath(uri, redirectUri)))) return stored
    const documentUrl = this.#options.clientMetadataDocument
    if (documentUrl !== undefined && (server as { client_id_metadata_document_supported?: boolean }).client_id_metadata_document_supported === true) {
      const registration: StoredClient = { client_id: documentUrl, source: 'metadata-document' }
      await store.setClient(server.issuer, registration)
      return registration
    }
    if (server.registration_endpoint === undefined) {
      throw new McpOAuthError('registration', `${server.issuer} offers no dynamic registration: configure a client_id for it (or a client metadata document URL)`)
    }
    const metadata = {
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      application_type: applicationType([redirectUri]),
      client_name: this.#options.clientName ?? 'mcp-auth',
    }
    let registered: { client_id: string; client_secret?: unknown; token_endpoint_auth_method?: unknown }
    try {
      const response = await oauth.dynamicClientRegistrationRequest(server, metadata, {
        [oauth.customFetch]: this.#fetch,
        [oauth.allowInsecureRequests]: isLoopbackUrl(server.issuer),
        signal: AbortSignal.timeout(defaults.oauthClient.requestTimeoutMs),
      })
      // Read leniently (servers send e.g. client_secret_expires_at as null), but client_id is required.
      const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined
      if (response.status !== 201 && response.status !== 200) {
        throw new Error(`${response.status}${typeof body?.['error'] === 'string' ? ` ${body['error']}: ${String(body['error_description'] ?? '')}` : ''}`)
      }
      if (typeof body?.['client_id'] !== 'string' || body['client_id'] === '') throw new Error('the response has no client_id')
      registered = body as typeof registered
    } catch (error) {
      throw new McpOAuthError('registration', `registration at ${server.issuer} failed: ${(error as Error).message}`, { cause: error })
    }
    const registration: StoredClient = {
      client_id: registered.client_id,
      ...(typeof registered.client_secret === 'string' ? { client_secret: registered.client_secret } : {}),
      ...(typeof registered.token_endpoint_auth_method === 'string' ? { token_endpoint_auth_method: registered.token_endpoint_auth_method } : {}),
      redirect_uris: [redirectUri],
      source: 'dynamic',
    }
    await store.setClient(server.issuer, registration)
    return registration
  }

  /**
   * Pre-registered credentials for this issuer. Those given for any issuer belong to the first one
   * they are used at: when the resource moves to another, they are not presented there, and the
   * error says what to configure (SEP-2352).
   */
  #configuredClient(issuer: string): StoredClient | undefined {
    const forIssuer = this.#options.clients?.[issuer]
    if (forIssuer !== undefined) return { ...forIssuer, source: 'configured' }
    const any = this.#options.anyIssuerClient
    if (any === undefined) return undefined
    this.#anyIssuerClientAt ??= issuer
    if (this.#anyIssuerClientAt !== issuer) {
      throw new McpOAuthError(
        'registration',
        `${this.#serverUrl} now names ${issuer} as its authorization server, but the configured client ${any.client_id} is registered at ${this.#anyIssuerClientAt}: configure a client for ${issuer}`,
      )
    }
    return { ...any, source: 'configured' }
  }

  #configuration(server: oauth.AuthorizationServer, registration: StoredClient): client.Configuration {
    const secret = registration.client_secret
    const method = registration.token_endpoint_auth_method ?? (secret === undefined ? 'none' : preferredSecretMethod(server))
    const auth = secret === undefined || method === 'none' ? client.None() : method === 'client_secret_post' ? client.ClientSecretPost(secret) : clientSecretBasic(secret)
    return clientConfiguration(server, registration.client_id, auth, this.#fetch)
  }
}

/**
 * The scopes asked for and not in the granted scope (RFC 6749 §5.1: a response without `scope`
 * granted what was asked). `offline_access` is not counted: its grant is the refresh token.
 */
function notGranted(requested: string | undefined, granted: string | undefined): string[] {
  if (requested === undefined || granted === undefined) return []
  const got = new Set(granted.split(' '))
  return requested.split(' ').filter((scope) => scope !== '' && scope !== 'offline_access' && !got.has(scope))
}

/**
 * The login a refusal asks for, if it is a step-up: 403 `insufficient_scope` (the scopes held and
 * those named), or 401 `insufficient_user_authentication` (RFC 9470 §3: a sign-in within
 * `max_age`, maybe of `acr_values`, for the scopes held).
 */
function stepUpAsked(response: Response, tokens: StoredTokens | undefined): AskedLogin | undefined {
  const params = challengeParams(response.headers.get('www-authenticate'))
  const held = tokens?.scope?.split(' ') ?? []
  if (response.status === 403 && params?.['error'] === 'insufficient_scope') {
    const wanted = new Set([...held, ...(params['scope']?.split(' ') ?? [])].filter(Boolean))
    return { scope: [...wanted].join(' '), challenge: null }
  }
  if (response.status !== 401 || params?.['error'] !== 'insufficient_user_authentication') return undefined
  const maxAge = params['max_age'] !== undefined && /^\d+$/.test(params['max_age']) ? Number(params['max_age']) : undefined
  const acrValues = params['acr_values']
  return {
    challenge: null,
    ...(held.length > 0 ? { scope: held.join(' ') } : {}),
    ...(maxAge !== undefined ? { maxAge } : {}),
    ...(acrValues !== undefined && acrValues !== '' ? { acrValues } : {}),
  }
}

/**
 * `max_age` and `acr_values` are OpenID Connect request parameters (OIDC Core §3.1.2.1), and an
 * OpenID provider (oidc-provider among them) takes them only in an `openid` request: a step-up
 * asks for `openid` too when the server lists it.
 */
function withOpenId(scope: string | undefined, stepUp: boolean, server: Pick<oauth.AuthorizationServer, 'scopes_supported'>): string | undefined {
  if (!stepUp || server.scopes_supported?.includes('openid') !== true) return scope
  const scopes = new Set(['openid', ...(scope?.split(' ').filter(Boolean) ?? [])])
  return [...scopes].join(' ')
}

/** Whether a token expires within the refresh skew (tokens without an expiry never do). */
function refreshDue(tokens: StoredTokens): boolean {
  return tokens.expires_at !== undefined && tokens.expires_at - defaults.oauthClient.refreshSkewSeconds <= Date.now() / 1000
}

/** An OAuth refusal as the server worded it: `invalid_target: unknown resource …`, and from whom. */
function oauthRefusal(error: unknown, issuer: string): string {
  const { error: code, error_description: description } = error as { error?: unknown; error_description?: unknown }
  if (typeof code !== 'string') return (error as Error).message
  return `${issuer} answered ${code}${typeof description === 'string' && description !== '' ? `: ${description}` : ''}`
}

/** client_secret_basic unless the server only lists client_secret_post (RFC 8414 token_endpoint_auth_methods_supported). */
function preferredSecretMethod(server: oauth.AuthorizationServer): string {
  const methods = server.token_endpoint_auth_methods_supported
  return methods !== undefined && !methods.includes('client_secret_basic') && methods.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic'
}

function sameLoopbackPath(registered: string, wanted: string): boolean {
  const a = new URL(registered)
  const b = new URL(wanted)
  return a.protocol === b.protocol && a.hostname === b.hostname && a.pathname === b.pathname
}

function portOf(uri: string | undefined): number | undefined {
  if (uri === undefined) return undefined
  const port = Number(new URL(uri).port)
  return Number.isInteger(port) && port > 0 ? port : undefined
}

function toStored(response: client.TokenEndpointResponse, previous?: StoredTokens): StoredTokens {
  const expiresIn = response.expires_in
  const refresh = response.refresh_token ?? previous?.refresh_token
  return {
    ...(previous?.client_id !== undefined ? { client_id: previous.client_id } : {}),
    access_token: response.access_token,
    ...(refresh !== undefined ? { refresh_token: refresh } : {}),
    ...(typeof expiresIn === 'number' ? { expires_at: Math.floor(Date.now() / 1000) + expiresIn } : {}),
    ...(response.scope !== undefined ? { scope: response.scope } : previous?.scope !== undefined ? { scope: previous.scope } : {}),
    token_type: response.token_type,
  }
}
