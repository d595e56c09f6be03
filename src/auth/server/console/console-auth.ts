import { createHash, randomBytes } from 'node:crypto'
import type { Context } from 'koa'
import { defaults } from '../../../config/defaults.js'
import type { InsufficientUserAuthenticationError } from '../../errors.js'
import { ConsoleTokenError, type ConsoleTokens, type ConsoleTokenSet } from './console-tokens.js'
import type { SealedCookies } from './sealed-cookies.js'

const c = defaults.authServer.admin.console

/** What a console cookie holds: the person's tokens and the session's own id (the forms' CSRF binds to it). */
export interface ConsoleSession {
  sid: string
  tokens: ConsoleTokenSet
  /**
   * Epoch seconds: this session changed the password then, so the account's `sessionsNotBefore`
   * (set by that change) does not end it. Sealed in the cookie: nobody else can claim it.
   */
  restampedAt?: number
}

/** A sign-in under way: what the callback checks and where it returns. */
interface SignInFlow {
  state: string
  verifier: string
  next: string
}

/** One of the two surfaces signed in through the console client: `/admin` or `/account`. */
export interface ConsoleSurface {
  /** `${mountPath}/admin` or `${mountPath}/account`. */
  basePath: string
  cookie: string
  /** The resource its tokens are for, and the scope asked. */
  resource: string
  scope: string
  redirectUri: string
}

/** The session cookie was absent, or its tokens no longer work: sign in (again). */
export class SignInNeeded extends Error {
  override name = 'SignInNeeded'
  constructor(
    readonly maxAge?: number,
    options?: ErrorOptions,
  ) {
    super('sign in', options)
  }
}

/**
 * The console's sign-in as an OAuth client of its own server: the redirect to the authorization
 * endpoint (code + PKCE, `state`, the surface's resource and scope, `max_age` when a fresher
 * sign-in is needed), the callback that redeems the code in-process, and each request's session:
 * its access token refreshed when about to expire. What a token is worth is decided by the
 * caller's check (AdminAuthority for `/admin`), never here.
 */
export class ConsoleAuth {
  readonly #tokens: ConsoleTokens
  readonly #cookies: SealedCookies
  readonly #authorizationEndpoint: string
  readonly #endSessionEndpoint: string
  readonly #clientId: string

  constructor(deps: { tokens: ConsoleTokens; cookies: SealedCookies; authorizationEndpoint: string; endSessionEndpoint: string; clientId: string }) {
    this.#tokens = deps.tokens
    this.#cookies = deps.cookies
    this.#authorizationEndpoint = deps.authorizationEndpoint
    this.#endSessionEndpoint = deps.endSessionEndpoint
    this.#clientId = deps.clientId
  }

  /** Redirects to the authorization endpoint; the callback comes back to `next` (a path under the surface). */
  startSignIn(ctx: Context, surface: ConsoleSurface, next: string, maxAge?: number): void {
    const verifier = randomBytes(32).toString('base64url')
    const state = randomBytes(16).toString('base64url')
    const back = next === surface.basePath || next.startsWith(`${surface.basePath}/`) ? next : surface.basePath
    this.#cookies.write(ctx, c.flowCookie, { state, verifier, next: back } satisfies SignInFlow, { path: surface.basePath, maxAgeSeconds: c.flowTtlSeconds })
    const url = new URL(this.#authorizationEndpoint)
    url.search = new URLSearchParams({
      client_id: this.#clientId,
      response_type: 'code',
      redirect_uri: surface.redirectUri,
      // oidc-provider takes max_age only with openid (OIDC Core §3.1.2.1)
      scope: maxAge === undefined ? surface.scope : `openid ${surface.scope}`,
      resource: surface.resource,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...(maxAge !== undefined ? { max_age: String(maxAge) } : {}),
    }).toString()
    ctx.set('cache-control', 'no-store')
    ctx.redirect(url.href)
  }

  /**
   * The authorization endpoint's answer: the code redeemed (state and PKCE checked), the session
   * cookie set, and the path to go back to; or the error the server sent (`access_denied` for an
   * account that may not have the scope).
   */
  async callback(ctx: Context, surface: ConsoleSurface): Promise<{ next: string } | { error: string; description: string }> {
    const flow = this.#cookies.read<SignInFlow>(ctx, c.flowCookie)
    this.#cookies.clear(ctx, c.flowCookie, surface.basePath)
    const query = ctx.URL.searchParams
    if (flow === undefined || query.get('state') !== flow.state) {
      return { error: 'sign_in_expired', description: 'This sign-in expired or was started in another window. Open the page again.' }
    }
    const error = query.get('error')
    if (error !== null) return { error, description: query.get('error_description') ?? '' }
    const code = query.get('code')
    if (code === null) return { error: 'invalid_request', description: 'The answer of the authorization endpoint had no code.' }
    const tokens = await this.#tokens.redeem(code, flow.verifier, surface.redirectUri, surface.resource)
    this.#write(ctx, surface, { sid: randomBytes(16).toString('base64url'), tokens })
    return { next: flow.next }
  }

  /**
   * The request's session, its access token refreshed when it expires within the leeway.
   * {@link SignInNeeded} when there is none or it cannot be refreshed.
   */
  async session(ctx: Context, surface: ConsoleSurface): Promise<ConsoleSession> {
    const session = this.#cookies.read<ConsoleSession>(ctx, surface.cookie)
    if (session === undefined) throw new SignInNeeded()
    if (session.tokens.expiresAt - c.refreshLeewaySeconds > Date.now() / 1000) return session
    return this.refresh(ctx, surface, session)
  }

  /** A new access token now (after an expiry, or a refusal a refresh may cure). */
  async refresh(ctx: Context, surface: ConsoleSurface, session: ConsoleSession): Promise<ConsoleSession> {
    if (session.tokens.refreshToken === undefined) throw new SignInNeeded()
    try {
      const tokens = await this.#tokens.refresh(session.tokens.refreshToken, surface.resource)
      const refreshed = { ...session, tokens: { ...tokens, refreshToken: tokens.refreshToken ?? session.tokens.refreshToken } }
      this.#write(ctx, surface, refreshed)
      return refreshed
    } catch (error) {
      if (error instanceof ConsoleTokenError) throw new SignInNeeded(undefined, { cause: error })
      throw error
    }
  }

  /** Rewrites the session (a re-stamp after a password change). */
  save(ctx: Context, surface: ConsoleSurface, session: ConsoleSession): void {
    this.#write(ctx, surface, session)
  }

  /** Drops the session cookie (a refused session; the sign-out below does more). */
  signOut(ctx: Context, surface: ConsoleSurface): void {
    this.#cookies.clear(ctx, surface.cookie, surface.basePath)
  }

  /**
   * A person's sign-out: the console's grant ends (its refresh token revoked, so its tokens stop
   * working on every node, `/admin`'s and `/account`'s alike), the cookie goes, and the browser is
   * sent to the server's end-session endpoint, which asks to end the browser session as well.
   */
  async endSession(ctx: Context, surface: ConsoleSurface, session: ConsoleSession | undefined): Promise<void> {
    if (session?.tokens.refreshToken !== undefined) await this.#tokens.revoke(session.tokens.refreshToken)
    this.signOut(ctx, surface)
    const url = new URL(this.#endSessionEndpoint)
    url.searchParams.set('client_id', this.#clientId)
    ctx.redirect(url.href)
    ctx.status = 303
  }

  #write(ctx: Context, surface: ConsoleSurface, session: ConsoleSession): void {
    this.#cookies.write(ctx, surface.cookie, session, { path: surface.basePath, maxAgeSeconds: c.sessionTtlSeconds })
  }
}

/** `max_age` of an `insufficient_user_authentication` refusal (RFC 9470), for the re-sign-in. */
export function maxAgeOf(error: InsufficientUserAuthenticationError): number {
  return Number(error.params['max_age'] ?? 0)
}
