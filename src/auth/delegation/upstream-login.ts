import { randomBytes, randomUUID } from 'node:crypto'
import type { Context } from 'koa'
import * as client from 'openid-client'
import { importPKCS8 } from 'jose'
import { defaults } from '../../config/defaults.js'
import type { OidcAdapter, OidcPayload, RecordStore } from '../../storage/types.js'
import { clientSecretBasic } from '../client/client-secret-basic.js'
import type { AccountStore } from '../server/stores/account-store.js'
import type { UpstreamOptions } from '../server/options.js'
import type { SecretBox } from '../server/keys/secret-box.js'
import { isLoopbackUrl } from '../../config/loopback-hosts.js'
import { outboundFetch } from '../../net/outbound-fetch.js'

const LINKS = 'upstream-links'
const TOKENS = 'upstream-tokens'
/** The storage model of upstream logins under way and their results (expiring, single-use records). */
export const UPSTREAM_PENDING_MODEL = 'UpstreamPending'

/** What an upstream login hands back to the interaction that started it. */
export interface UpstreamResult {
  accountId?: string
  error?: string
  error_description?: string
}

/**
 * Login at an upstream identity provider (openid-client): our authorization server is its OAuth
 * client. `start` sends the browser there (PKCE, state, nonce); `callback` exchanges the code,
 * maps the upstream identity to a local account (created on first login, linked by issuer +
 * subject) and keeps the upstream tokens sealed with the data key. The interaction then finishes
 * under its own path, where its cookie is.
 */
export class UpstreamLogin {
  readonly #options: UpstreamOptions
  readonly #callbackUrl: string
  readonly #records: RecordStore
  readonly #pending: OidcAdapter
  readonly #accounts: AccountStore
  #config: Promise<client.Configuration> | undefined
  #sessions: UpstreamSessions | undefined

  /**
   * `pending` keeps each login under way (by its `state`) and each finished login's result (by a
   * one-time handle): records that expire with the interaction, each taken once by an atomic claim.
   */
  constructor(options: { upstream: UpstreamOptions; callbackUrl: string; records: RecordStore; pending: OidcAdapter; accounts: AccountStore }) {
    this.#options = options.upstream
    this.#callbackUrl = options.callbackUrl
    this.#records = options.records
    this.#pending = options.pending
    this.#accounts = options.accounts
  }

  /** Where finished logins keep their upstream tokens (UpstreamSessions attaches itself). */
  attachSessions(sessions: UpstreamSessions): void {
    this.#sessions = sessions
  }

  get issuer(): string {
    return this.#options.issuer
  }

  /** Redeems an upstream refresh token (the provider may rotate it). */
  async refreshTokens(refreshToken: string): Promise<{ access_token: string; refresh_token?: string; expires_at?: number }> {
    const config = await this.#configuration()
    const response = await client.refreshTokenGrant(config, refreshToken)
    return {
      access_token: response.access_token,
      refresh_token: response.refresh_token ?? refreshToken,
      ...(typeof response.expires_in === 'number' ? { expires_at: Math.floor(Date.now() / 1000) + response.expires_in } : {}),
    }
  }

  /** RFC 7009 revocation at the upstream provider, when it has the endpoint. */
  async revokeToken(token: string): Promise<void> {
    const config = await this.#configuration()
    if (config.serverMetadata().revocation_endpoint === undefined) return
    await client.tokenRevocation(config, token)
  }

  get callbackPath(): string {
    return new URL(this.#callbackUrl).pathname
  }

  #configuration(): Promise<client.Configuration> {
    this.#config ??= (async () => {
      const { issuer, clientId, clientSecret, privateKeyPem, privateKeyAlg, endpoints } = this.#options
      const auth =
        privateKeyPem !== undefined
          ? client.PrivateKeyJwt(await importPKCS8(privateKeyPem, privateKeyAlg ?? 'ES256'))
          : clientSecret !== undefined
            ? clientSecretBasic(clientSecret)
            : client.None()
      // every request to the upstream (discovery, keys, code exchange, refresh, userinfo,
      // revocation) goes through the outbound fetch: bounded, no redirects, private addresses
      // only when the configuration allows them
      const outbound = outboundFetch({ configuredBy: 'operator', allowPrivateAddresses: this.#options.allowPrivateAddresses === true, setting: 'upstream.allowPrivateAddresses' })
      const config =
        endpoints !== undefined
          ? new client.Configuration({ issuer, ...endpoints }, clientId, {}, auth)
          : await client.discovery(new URL(issuer), clientId, undefined, auth, {
              ...(isLoopbackUrl(issuer) ? { execute: [client.allowInsecureRequests] } : {}),
              timeout: defaults.oauthClient.requestTimeoutMs / 1000,
              [client.customFetch]: outbound,
            })
      config[client.customFetch] = outbound
      if (isLoopbackUrl(issuer)) client.allowInsecureRequests(config)
      // Every later request to the upstream (code exchange, refresh, userinfo, revocation) has a deadline too.
      config.timeout = defaults.oauthClient.requestTimeoutMs / 1000
      return config
    })().catch((error: unknown) => {
      this.#config = undefined
      throw error
    })
    return this.#config
  }

  #scope(): string {
    return (this.#options.scopes ?? ['openid', 'profile', 'email']).join(' ')
  }

  /** Sends the browser to the upstream login for interaction `uid`. */
  async start(ctx: Context, uid: string): Promise<void> {
    const config = await this.#configuration()
    const verifier = client.randomPKCECodeVerifier()
    const state = client.randomState()
    const openid = this.#scope().split(' ').includes('openid')
    const nonce = openid ? client.randomNonce() : undefined
    await this.#pending.upsert(state, { uid, verifier, ...(nonce ? { nonce } : {}) }, defaults.authServer.ttl.interaction)
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.#callbackUrl,
      scope: this.#scope(),
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...(nonce ? { nonce } : {}),
    })
    ctx.redirect(url.href)
  }

  /**
   * The upstream provider's redirect back: exchanges the code and returns the interaction to
   * resume and a one-time handle to its result; undefined for an unknown or stale `state`.
   */
  async callback(ctx: Context): Promise<{ uid: string; handle: string } | undefined> {
    const current = new URL(ctx.originalUrl, this.#callbackUrl)
    const state = current.searchParams.get('state')
    if (state === null) return undefined
    const pending = (await this.#takeOnce(state)) as { uid: string; verifier: string; nonce?: string } | undefined
    if (pending === undefined) return undefined
    let result: UpstreamResult
    const upstreamError = current.searchParams.get('error')
    if (upstreamError !== null) {
      result = { error: upstreamError === 'access_denied' ? 'access_denied' : 'temporarily_unavailable', error_description: `the identity provider answered ${upstreamError}` }
    } else {
      try {
        result = { accountId: await this.#finish(current, state, pending) }
      } catch (error) {
        const code = (error as { error?: string }).error
        result = { error: 'access_denied', error_description: `sign-in at the identity provider failed: ${code ?? (error as Error).message}` }
      }
    }
    const handle = randomBytes(24).toString('base64url')
    await this.#pending.upsert(`result:${handle}`, { uid: pending.uid, ...result }, defaults.authServer.ttl.interaction)
    return { uid: pending.uid, handle }
  }

  /**
   * The pending record `id`, for the one caller that claims it: the same state or handle arriving
   * twice at once (on two nodes) is honoured once. The record goes once taken; it expires otherwise.
   */
  async #takeOnce(id: string, belongs: (stored: OidcPayload) => boolean = () => true): Promise<OidcPayload | undefined> {
    const stored = await this.#pending.find(id)
    if (stored === undefined || !belongs(stored) || !(await this.#pending.claim(id, 'taken'))) return undefined
    await this.#pending.destroy(id)
    return stored
  }

  /** The result of a finished upstream login for `uid` (once). */
  async take(uid: string, handle: string): Promise<UpstreamResult | undefined> {
    // a handle names its interaction: one presented for another is left alone, not used up
    const stored = (await this.#takeOnce(`result:${handle}`, (found) => found['uid'] === uid)) as (UpstreamResult & { uid: string }) | undefined
    if (stored === undefined) return undefined
    const { uid: _uid, ...result } = stored
    return result
  }

  async #finish(current: URL, state: string, pending: { verifier: string; nonce?: string }): Promise<string> {
    const config = await this.#configuration()
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: pending.verifier,
      expectedState: state,
      ...(pending.nonce ? { expectedNonce: pending.nonce, idTokenExpected: true } : {}),
    })
    let claims: Record<string, unknown> | undefined = tokens.claims()
    if (claims === undefined && config.serverMetadata().userinfo_endpoint !== undefined) {
      claims = await client.fetchUserInfo(config, tokens.access_token, client.skipSubjectCheck)
    }
    const subject = claims?.['sub']
    if (typeof subject !== 'string') throw new Error('the identity provider said nothing about who signed in (no sub)')
    const accountId = await this.#link(subject, claims ?? {})
    const expiresAt = typeof tokens.expires_in === 'number' ? Math.floor(Date.now() / 1000) + tokens.expires_in : undefined
    await this.#sessions?.start(accountId, {
      access_token: tokens.access_token,
      ...(tokens.refresh_token !== undefined ? { refresh_token: tokens.refresh_token } : {}),
      ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
    })
    return accountId
  }

  /** The account's scopes from the upstream's claims (`accountScopes`), or undefined for the resources' defaults. */
  #accountScopes(claims: Record<string, unknown>): string[] | undefined {
    const rule = this.#options.accountScopes
    if (rule === undefined) return undefined
    const value = claims[rule.claim]
    const values = Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : typeof value === 'string' ? [value] : []
    const matched = values.filter((entry) => Object.hasOwn(rule.map, entry)).flatMap((entry) => rule.map[entry]!)
    if (matched.length > 0) return [...new Set(matched)]
    return rule.default
  }

  async #link(subject: string, claims: Record<string, unknown>): Promise<string> {
    const key = JSON.stringify([this.#options.issuer, subject])
    const linked = await this.#records.get<{ accountId: string }>(LINKS, key)
    const names = this.#options.claims ?? {}
    const pick = (name: string | undefined, fallback: string): unknown => claims[name ?? fallback]
    const mapped = {
      ...(typeof pick(names.name, 'name') === 'string' ? { name: pick(names.name, 'name') as string } : {}),
      ...(typeof pick(names.email, 'email') === 'string' ? { email: pick(names.email, 'email') as string } : {}),
    }
    const scopes = this.#accountScopes(claims)
    if (linked !== undefined) {
      const account = await this.#accounts.findById(linked.accountId)
      if (account !== undefined) {
        const { scopes: _previous, ...rest } = account
        await this.#accounts.putAccount({ ...rest, claims: { ...account.claims, ...mapped }, ...(scopes !== undefined ? { scopes } : {}) })
        return account.id
      }
    }
    const username = pick(names.username, 'preferred_username')
    const id = randomUUID()
    await this.#accounts.putAccount({
      id,
      username: typeof username === 'string' ? username : subject,
      claims: mapped,
      createdAt: Date.now(),
      upstream: { issuer: this.#options.issuer, subject },
      ...(scopes !== undefined ? { scopes } : {}),
    })
    await this.#records.put(LINKS, key, { accountId: id })
    return id
  }
}

/** What is kept (sealed) about one upstream session. */
interface UpstreamTokens {
  access_token: string
  refresh_token?: string
  expires_at?: number
}

/** One upstream login: its tokens (sealed), the grants of ours that stand on it, and whether it ended. */
interface StoredSession {
  issuer: string
  sealed: string
  grants: string[]
  ended?: boolean
}

/** Outcome of checking an upstream session before one of our grants is honoured. */
export type UpstreamStatus = 'ok' | 'refused' | 'unavailable' | 'none'

const sessionKey = (sessionId: string): string => `session:${sessionId}`
const grantKey = (grantId: string): string => `grant:${grantId}`
const accountKey = (accountId: string): string => `account:${accountId}`

/**
 * The upstream side of our grants. Each upstream login is one session, shared by every grant of
 * ours that came from it (the account's current session at consent); every refresh of it, by any
 * grant, updates it for all, one at a time — so no two grants ever hold an upstream refresh token
 * the other has rotated away (which the upstream would take as reuse and revoke for everyone). An
 * upstream refusal marks the session ended: each grant on it ends at its next use, and a new
 * authorization for that account goes to the upstream again (see `loginNeeded`).
 */
export class UpstreamSessions {
  readonly #login: UpstreamLogin
  readonly #records: RecordStore
  readonly #box: SecretBox
  readonly #accounts: AccountStore
  /** Refreshes under way, per session: concurrent callers share one. */
  readonly #inFlight = new Map<string, Promise<UpstreamStatus>>()

  constructor(login: UpstreamLogin, records: RecordStore, box: SecretBox, accounts: AccountStore) {
    this.#login = login
    this.#records = records
    this.#box = box
    this.#accounts = accounts
    login.attachSessions(this)
  }

  /** A finished upstream login becomes the account's current upstream session. */
  async start(accountId: string, tokens: UpstreamTokens): Promise<void> {
    const sessionId = randomUUID()
    await this.#records.put(TOKENS, sessionKey(sessionId), { issuer: this.#login.issuer, sealed: this.#seal(sessionId, tokens), grants: [] } satisfies StoredSession)
    await this.#records.put(TOKENS, accountKey(accountId), { sessionId })
  }

  /** Ties one of our grants to the account's current upstream session (at consent, or at a re-login). */
  async bindGrant(accountId: string, grantId: string): Promise<void> {
    const current = await this.#records.get<{ sessionId: string }>(TOKENS, accountKey(accountId))
    if (current === undefined) return
    const previous = await this.#records.get<{ sessionId: string }>(TOKENS, grantKey(grantId))
    if (previous !== undefined && previous.sessionId !== current.sessionId) await this.#detach(grantId, previous.sessionId)
    const session = await this.#records.get<StoredSession>(TOKENS, sessionKey(current.sessionId))
    if (session === undefined) return
    if (!session.grants.includes(grantId)) await this.#records.put(TOKENS, sessionKey(current.sessionId), { ...session, grants: [...session.grants, grantId] })
    await this.#records.put(TOKENS, grantKey(grantId), { sessionId: current.sessionId })
  }

  /**
   * Whether an authorization for `accountId` must go to the upstream again although our browser
   * session is alive: its current upstream session is gone, ended, or refused when refreshed.
   * An upstream that cannot be reached does not force a login (it could not answer one either).
   */
  async loginNeeded(accountId: string): Promise<boolean> {
    const current = await this.#records.get<{ sessionId: string }>(TOKENS, accountKey(accountId))
    if (current === undefined) return (await this.#accounts.findById(accountId))?.upstream !== undefined
    const session = await this.#records.get<StoredSession>(TOKENS, sessionKey(current.sessionId))
    if (session === undefined || session.ended === true) return true
    const tokens = this.#open(current.sessionId, session)
    if (tokens.expires_at === undefined || tokens.expires_at * 1000 > Date.now()) return false
    return (await this.#refreshSession(current.sessionId)) === 'refused'
  }

  /**
   * Before one of our refresh tokens is redeemed: the upstream session is refreshed with its
   * refresh token. 'refused' (invalid_grant upstream, or the session already ended) means our
   * grant must end; 'unavailable' means the upstream could not be reached (nothing is changed).
   */
  async refresh(grantId: string): Promise<UpstreamStatus> {
    const sessionId = (await this.#records.get<{ sessionId: string }>(TOKENS, grantKey(grantId)))?.sessionId
    return sessionId === undefined ? 'none' : this.#refreshSession(sessionId)
  }

  /** Whether the upstream access token of a grant is still within its lifetime (no network). */
  async current(grantId: string): Promise<UpstreamStatus> {
    const sessionId = (await this.#records.get<{ sessionId: string }>(TOKENS, grantKey(grantId)))?.sessionId
    const session = sessionId === undefined ? undefined : await this.#records.get<StoredSession>(TOKENS, sessionKey(sessionId))
    if (sessionId === undefined || session === undefined) return 'none'
    if (session.ended === true) return 'refused'
    const tokens = this.#open(sessionId, session)
    return tokens.expires_at === undefined || tokens.expires_at * 1000 > Date.now() ? 'ok' : 'refused'
  }

  /**
   * Our grant ended: it leaves its upstream session; the last grant to leave revokes the upstream
   * refresh token where the provider supports it (logout and revocation cascade upstream).
   */
  async revoke(grantId: string): Promise<void> {
    const pointer = await this.#records.get<{ sessionId: string }>(TOKENS, grantKey(grantId))
    if (pointer === undefined) return
    await this.#records.delete(TOKENS, grantKey(grantId))
    await this.#detach(grantId, pointer.sessionId)
  }

  async #detach(grantId: string, sessionId: string): Promise<void> {
    const session = await this.#records.get<StoredSession>(TOKENS, sessionKey(sessionId))
    if (session === undefined) return
    const grants = session.grants.filter((id) => id !== grantId)
    if (grants.length > 0) {
      await this.#records.put(TOKENS, sessionKey(sessionId), { ...session, grants })
      return
    }
    await this.#records.delete(TOKENS, sessionKey(sessionId))
    const tokens = this.#open(sessionId, session)
    if (session.ended !== true && tokens.refresh_token !== undefined) await this.#login.revokeToken(tokens.refresh_token).catch(() => undefined)
  }

  #refreshSession(sessionId: string): Promise<UpstreamStatus> {
    let running = this.#inFlight.get(sessionId)
    if (running === undefined) {
      running = this.#doRefresh(sessionId).finally(() => this.#inFlight.delete(sessionId))
      this.#inFlight.set(sessionId, running)
    }
    return running
  }

  async #doRefresh(sessionId: string): Promise<UpstreamStatus> {
    const session = await this.#records.get<StoredSession>(TOKENS, sessionKey(sessionId))
    if (session === undefined) return 'none'
    if (session.ended === true) return 'refused'
    const tokens = this.#open(sessionId, session)
    if (tokens.refresh_token === undefined) {
      return tokens.expires_at !== undefined && tokens.expires_at * 1000 <= Date.now() ? this.#end(sessionId, session) : 'ok'
    }
    try {
      const refreshed = await this.#login.refreshTokens(tokens.refresh_token)
      const latest = (await this.#records.get<StoredSession>(TOKENS, sessionKey(sessionId))) ?? session
      await this.#records.put(TOKENS, sessionKey(sessionId), { ...latest, sealed: this.#seal(sessionId, refreshed) })
      return 'ok'
    } catch (error) {
      const code = (error as { error?: string }).error
      return code === 'invalid_grant' || code === 'unauthorized_client' || code === 'invalid_client' ? this.#end(sessionId, session) : 'unavailable'
    }
  }

  async #end(sessionId: string, session: StoredSession): Promise<'refused'> {
    const latest = (await this.#records.get<StoredSession>(TOKENS, sessionKey(sessionId))) ?? session
    await this.#records.put(TOKENS, sessionKey(sessionId), { ...latest, ended: true })
    return 'refused'
  }

  #seal(sessionId: string, tokens: UpstreamTokens): string {
    return this.#box.seal(JSON.stringify(tokens), `upstream:session:${sessionId}`)
  }

  #open(sessionId: string, session: StoredSession): UpstreamTokens {
    return JSON.parse(this.#box.open(session.sealed, `upstream:session:${sessionId}`)) as UpstreamTokens
  }
}
