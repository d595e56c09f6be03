import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Context, Middleware, Next } from 'koa'
import type Provider from 'oidc-provider'
import type { InteractionResults } from 'oidc-provider'
import { defaults } from '../../config/defaults.js'
import type { AccountStore } from './account-store.js'
import type { ConsentStore } from './consent-store.js'
import type { RateLimiter } from './rate-limiter.js'
import { escapeHtml, PAGE_HEADERS, renderView } from './views.js'
import { readFormBody } from './read-form-body.js'
import { clientAddress } from './client-address.js'
import type { UpstreamLogin, UpstreamSessions } from '../delegation/upstream-login.js'

export interface InteractionDeps {
  provider: Provider
  accounts: AccountStore
  consents: ConsentStore
  /** Key for the forms' CSRF tokens. */
  csrfKey: Buffer
  issuer: URL
  /** `${mountPath}/interaction` */
  basePath: string
  /** Configured resources, to describe the default one on the pages. */
  defaultResource: string
  loginLimits?: { perAddress: RateLimiter; perAccount: RateLimiter }
  /** When set, users log in at this upstream identity provider instead of the local form. */
  upstream?: UpstreamLogin
  /** Ties each consented grant to the upstream session it came from. */
  upstreamSessions?: UpstreamSessions
}

const SCOPE_TEXT: Record<string, string> = {
  openid: 'Confirm your identity',
  profile: 'Your name and username',
  email: 'Your email address',
  offline_access: 'Stay signed in until you revoke access (refresh tokens)',
}

/**
 * The login and consent pages: GET `{basePath}/:uid` shows the step oidc-provider asks for;
 * POST `/:uid/login`, `/:uid/confirm` and `/:uid/abort` finish it. Forms carry a CSRF token bound
 * to the interaction; a cross-origin POST is refused before anything else.
 */
export function interactionRoutes(deps: InteractionDeps): Middleware {
  const { provider, basePath } = deps
  const pattern = new RegExp(`^${basePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/([A-Za-z0-9_-]{1,64})(?:/(login|confirm|abort|upstream))?$`)

  const csrfFor = (uid: string): string => createHmac('sha256', deps.csrfKey).update(`interaction:${uid}`).digest('base64url')

  function page(ctx: Context, status: number, name: 'login' | 'consent' | 'error', title: string, values: Record<string, unknown>): void {
    ctx.status = status
    ctx.set(PAGE_HEADERS)
    ctx.type = 'html'
    ctx.body = renderView(name, title, values)
  }

  async function show(ctx: Context, uid: string, error?: string, username = ''): Promise<void> {
    const details = await provider.interactionDetails(ctx.req, ctx.res)
    if (details.uid !== uid) throw new InteractionMismatch()
    const client = await provider.Client.find(String(details.params['client_id']))
    if (client === undefined) throw new InteractionMismatch()
    const clientName = client.clientName ?? client.clientId
    const prompt = details.prompt
    const missing = (prompt.details['missingResourceScopes'] ?? {}) as Record<string, string[]>
    const resource = Object.keys(missing)[0] ?? (typeof details.params['resource'] === 'string' ? details.params['resource'] : deps.defaultResource)
    const csrf = csrfFor(uid)
    const abortAction = `${basePath}/${uid}/abort`
    if (prompt.name === 'login' && deps.upstream !== undefined && error === undefined) {
      await deps.upstream.start(ctx, uid)
      return
    }
    if (prompt.name === 'login') {
      page(ctx, error === undefined ? 200 : ctx.status >= 400 ? ctx.status : 401, 'login', 'Sign in', {
        clientName,
        resource,
        csrf,
        username,
        action: `${basePath}/${uid}/login`,
        abortAction,
        errorBlock: error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>`,
      })
      return
    }
    const account = details.session?.accountId === undefined ? undefined : await deps.accounts.findById(details.session.accountId)
    const scopes = new Set<string>([
      ...((prompt.details['missingOIDCScope'] as string[] | undefined) ?? []),
      ...Object.values(missing).flat(),
    ])
    scopes.delete('openid')
    // Refresh tokens go to every client allowed the grant (see provider-configuration), so say so
    // whether or not it asked for offline_access.
    scopes.delete('offline_access')
    const scopeItems =
      [...scopes].map((scope) => `<li><code>${escapeHtml(scope)}</code>${SCOPE_TEXT[scope] ? ` — ${escapeHtml(SCOPE_TEXT[scope])}` : ''}</li>`).join('') +
      (client.grantTypeAllowed('refresh_token') ? `<li>${escapeHtml(SCOPE_TEXT['offline_access'])}</li>` : '')
    const redirectUri = URL.parse(String(details.params['redirect_uri'] ?? ''))
    page(ctx, 200, 'consent', 'Allow access?', {
      clientName,
      clientId: client.clientId,
      resource,
      username: account?.username ?? details.session?.accountId ?? '',
      redirectHost: redirectUri?.host ?? '(unknown)',
      scopeItems: scopeItems === '' ? '<li>Access with no particular scope</li>' : scopeItems,
      csrf,
      confirmAction: `${basePath}/${uid}/confirm`,
      abortAction,
    })
  }

  async function login(ctx: Context, uid: string, form: URLSearchParams): Promise<void> {
    const username = form.get('username') ?? ''
    const password = form.get('password') ?? ''
    if (deps.loginLimits !== undefined) {
      for (const [limiter, key] of [
        [deps.loginLimits.perAddress, clientAddress(ctx)],
        [deps.loginLimits.perAccount, username.toLowerCase()],
      ] as const) {
        const verdict = limiter.hit(key)
        if (!verdict.allowed) {
          ctx.status = 429
          ctx.set('retry-after', String(verdict.retryAfterSeconds))
          await show(ctx, uid, `Too many sign-in attempts. Try again in ${verdict.retryAfterSeconds} s.`, username)
          return
        }
      }
    }
    const account = username === '' || password === '' ? undefined : await deps.accounts.authenticate(username, password)
    if (account === undefined) {
      ctx.status = 401
      await show(ctx, uid, 'Wrong username or password.', username)
      return
    }
    const result: InteractionResults = { login: { accountId: account.id, amr: ['pwd'] } }
    await provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false })
  }

  async function confirm(ctx: Context): Promise<void> {
    const details = await provider.interactionDetails(ctx.req, ctx.res)
    if (details.prompt.name !== 'consent' || details.session?.accountId === undefined) throw new InteractionMismatch()
    const accountId = details.session.accountId
    const clientId = String(details.params['client_id'])
    const promptDetails = details.prompt.details
    const grant =
      (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
      new provider.Grant({ accountId, clientId })
    const missingScope = promptDetails['missingOIDCScope'] as string[] | undefined
    if (missingScope) grant.addOIDCScope(missingScope.join(' '))
    const missingClaims = promptDetails['missingOIDCClaims'] as string[] | undefined
    if (missingClaims) grant.addOIDCClaims(missingClaims)
    const missingResourceScopes = promptDetails['missingResourceScopes'] as Record<string, string[]> | undefined
    if (missingResourceScopes) {
      for (const [indicator, scopes] of Object.entries(missingResourceScopes)) grant.addResourceScope(indicator, scopes.join(' '))
    }
    const grantId = await grant.save()
    await deps.consents.remember(accountId, clientId, grantId)
    await deps.upstreamSessions?.bindGrant(accountId, grantId)
    await provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true })
  }

  async function abort(ctx: Context): Promise<void> {
    const result = { error: 'access_denied', error_description: 'the user denied the request' }
    await provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false })
  }

  /** Back from the upstream provider (its redirect URI): hand the result to the interaction, under its path. */
  async function upstreamCallback(ctx: Context): Promise<void> {
    const back = await deps.upstream!.callback(ctx)
    if (back === undefined) {
      page(ctx, 400, 'error', 'Sign-in failed', { error: 'unknown or expired sign-in', description: 'This sign-in has expired or did not start here. Start again from the application.' })
      return
    }
    ctx.redirect(`${basePath}/${back.uid}/upstream?handle=${encodeURIComponent(back.handle)}`)
  }

  async function upstreamDone(ctx: Context, uid: string): Promise<void> {
    const result = await deps.upstream!.take(uid, String(ctx.query['handle'] ?? ''))
    if (result === undefined) throw new InteractionMismatch()
    if (result.accountId !== undefined) {
      // A remembered consent skips the consent step: tie its grant to this new upstream session now.
      const details = await provider.interactionDetails(ctx.req, ctx.res)
      const remembered = await deps.consents.grantIdFor(result.accountId, String(details.params['client_id']))
      if (remembered !== undefined) await deps.upstreamSessions?.bindGrant(result.accountId, remembered)
    }
    const outcome: InteractionResults =
      result.accountId !== undefined
        ? { login: { accountId: result.accountId, amr: ['fed'] } }
        : { error: result.error ?? 'access_denied', error_description: result.error_description ?? 'the identity provider refused the sign-in' }
    await provider.interactionFinished(ctx.req, ctx.res, outcome, { mergeWithLastSubmission: false })
  }

  return async function interactions(ctx: Context, next: Next): Promise<void> {
    if (deps.upstream !== undefined && ctx.path === deps.upstream.callbackPath && ctx.method === 'GET') {
      try {
        await upstreamCallback(ctx)
      } catch (error) {
        page(ctx, 502, 'error', 'Sign-in failed', { error: 'identity provider error', description: 'The identity provider could not be reached or answered in a way we could not use. Try again later.' })
        ctx.app.emit('error', error, ctx)
      }
      return
    }
    const match = pattern.exec(ctx.path)
    if (match === null) return next()
    const uid = match[1]!
    const action = match[2]
    try {
      if (action === 'upstream' && deps.upstream !== undefined) {
        if (ctx.method !== 'GET') {
          ctx.status = 405
          ctx.set('allow', 'GET')
          return
        }
        await upstreamDone(ctx, uid)
        return
      }
      if (action === undefined) {
        if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
          ctx.status = 405
          ctx.set('allow', 'GET, HEAD')
          return
        }
        await show(ctx, uid)
        return
      }
      if (ctx.method !== 'POST') {
        ctx.status = 405
        ctx.set('allow', 'POST')
        return
      }
      const origin = ctx.get('origin')
      if (origin !== '' && origin !== deps.issuer.origin) {
        page(ctx, 403, 'error', 'Request refused', { error: 'cross-origin form submission refused', description: 'Start the sign-in again from the application.' })
        return
      }
      const form = await readFormBody(ctx, defaults.authServer.maxFormBytes)
      const csrf = Buffer.from(form.get('csrf') ?? '')
      const expected = Buffer.from(csrfFor(uid))
      if (csrf.length !== expected.length || !timingSafeEqual(csrf, expected)) {
        page(ctx, 403, 'error', 'Request refused', { error: 'the form has expired or was not sent by this page', description: 'Start the sign-in again from the application.' })
        return
      }
      if (action === 'login') await login(ctx, uid, form)
      else if (action === 'confirm') await confirm(ctx)
      else await abort(ctx)
    } catch (error) {
      const name = (error as { name?: string }).name ?? ''
      const description =
        error instanceof InteractionMismatch || name === 'SessionNotFound' || name === 'InvalidRequest'
          ? 'This sign-in has expired or belongs to another browser window. Start again from the application.'
          : 'The sign-in could not be completed. Start again from the application.'
      const status = (error as { status?: number }).status ?? (error instanceof InteractionMismatch ? 400 : 500)
      page(ctx, status >= 400 && status < 600 ? status : 500, 'error', 'Sign-in failed', { error: (error as { error?: string }).error ?? 'interaction_failed', description })
      if (status >= 500) ctx.app.emit('error', error, ctx)
    }
  }
}

class InteractionMismatch extends Error {
  override name = 'InteractionMismatch'
}
