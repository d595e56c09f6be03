import type { Context, Next } from 'koa'
import { AccessDeniedError, InsufficientUserAuthenticationError, OAuthError } from '../../errors.js'
import { AdminError } from '../admin/admin-error.js'
import { callerActor, type AdminCaller } from '../admin-api/admin-caller.js'
import { actingAs } from '../admin/admin-audit.js'
import { requestFacts } from '../provider/audit-provider-events.js'
import { accountAction, accountPage, accountsPage, createAccount } from './admin-account-pages.js'
import { clientAction, clientPage, clientsPage, revokeGrant } from './admin-client-pages.js'
import { auditPageView } from './admin-audit-pages.js'
import { adminNav } from './admin-nav.js'
import { keysPage, overviewPage, resourcesPage } from './admin-server-pages.js'
import { maxAgeOf, SignInNeeded, type ConsoleSession } from './console-auth.js'
import type { AdminPage, ConsoleDeps } from './console-deps.js'
import { csrfToken, FormRefused, readConsoleForm } from './console-forms.js'
import { h, notice, sendPage } from './console-view.js'

interface Route {
  method: 'GET' | 'POST'
  /** Matched against the path under the console (`''` is the console itself). */
  pattern: RegExp
  page: AdminPage
}

/** The console's pages and forms behind the administrator's token check, in the order of the navigation. */
const ROUTES: readonly Route[] = [
  { method: 'GET', pattern: /^$/, page: overviewPage },
  { method: 'GET', pattern: /^\/accounts$/, page: accountsPage },
  { method: 'POST', pattern: /^\/accounts$/, page: createAccount },
  { method: 'GET', pattern: /^\/accounts\/([^/]+)$/, page: accountPage },
  { method: 'POST', pattern: /^\/accounts\/([^/]+)\/(disable|enable|password-link|make-admin|remove-admin|delete)$/, page: accountAction },
  { method: 'GET', pattern: /^\/clients$/, page: clientsPage },
  { method: 'GET', pattern: /^\/clients\/([^/]+)$/, page: clientPage },
  { method: 'POST', pattern: /^\/clients\/([^/]+)\/(remove|block|unblock)$/, page: clientAction },
  { method: 'POST', pattern: /^\/grants\/([^/]+)\/revoke$/, page: revokeGrant },
  { method: 'GET', pattern: /^\/resources$/, page: resourcesPage },
  { method: 'GET', pattern: /^\/keys$/, page: keysPage },
  { method: 'GET', pattern: /^\/audit$/, page: auditPageView },
]

/** What an AdminError means for the page that shows it. */
const STATUS_OF: Partial<Record<AdminError['code'], number>> = { unknown_account: 404, unknown_client: 404, invalid: 400, demo_account: 403 }

/**
 * `/admin` (everything but `/admin/api`, `/admin/password/…` and `/admin/setup/…`): the sign-in
 * callback and sign-out, then every page behind the same check as the admin API
 * (`AdminAuthority`: the token's audience, scope, expiry, revocation; the account's role, state
 * and sign-in age), with the session's access token refreshed when it expires. A sign-in too old
 * goes back through the authorization endpoint with `max_age`, to the same page.
 */
export async function serveAdminConsole(ctx: Context, next: Next, deps: ConsoleDeps): Promise<void> {
  const surface = deps.surfaces.admin
  const sub = ctx.path.slice(surface.basePath.length)
  if (sub === '/callback' && ctx.method === 'GET') return callback(ctx, deps)
  const route = ROUTES.find((candidate) => candidate.pattern.test(sub) && candidate.method === ctx.method)
  if (sub === '/signout' && ctx.method === 'POST') return signOut(ctx, deps)
  if (route === undefined) {
    if (ROUTES.some((candidate) => candidate.pattern.test(sub))) {
      ctx.status = 405
      return
    }
    return next()
  }
  const here = ctx.method === 'GET' ? `${ctx.path}${ctx.search}` : surface.basePath
  let session: ConsoleSession
  let caller: AdminCaller
  try {
    session = await deps.auth.session(ctx, surface)
    caller = await authenticate(ctx, deps, session).catch(async (error: unknown) => {
      // a refused access token a refresh may cure (expired early, keys rotated); the refresh fails when the grant is gone
      if (!(error instanceof OAuthError) || error.status !== 401 || error instanceof InsufficientUserAuthenticationError) throw error
      session = await deps.auth.refresh(ctx, surface, session)
      return authenticate(ctx, deps, session)
    })
  } catch (error) {
    return refused(ctx, deps, error, here)
  }
  if (caller.kind !== 'person') return notAdministrator(ctx, deps, 'This token is not a person’s.')
  const person = caller
  const csrf = csrfToken(deps.csrfKey, session.sid)
  try {
    const form = ctx.method === 'POST' ? await readConsoleForm(ctx, { origin: deps.issuer.origin, csrfKey: deps.csrfKey, binding: session.sid }) : new URLSearchParams()
    const params = route.pattern
      .exec(sub)!
      .slice(1)
      .map((param) => decodeURIComponent(param))
    await actingAs({ actor: callerActor(person, 'console'), ...requestFacts(ctx) }, () =>
      route.page({ ctx, deps, caller: person, session, csrf, params, form, nav: (current) => adminNav(surface.basePath, current, csrf, person.account.username) }),
    )
  } catch (error) {
    if (error instanceof FormRefused) {
      sendPage(
        ctx,
        { status: 403, title: 'Request refused', content: `${notice(error.message, true)}<p><a href="${h(surface.basePath)}">Back to the console</a></p>` },
        deps.branding,
      )
      return
    }
    if (error instanceof AdminError) {
      const back = ctx.get('referer')
      sendPage(
        ctx,
        {
          status: STATUS_OF[error.code] ?? 409,
          title: 'Not done',
          nav: adminNav(surface.basePath, '', csrf, person.account.username),
          content: `${notice(error.message, true)}<p><a href="${h(back.startsWith(deps.issuer.origin) ? back : surface.basePath)}">Back</a></p>`,
        },
        deps.branding,
      )
      return
    }
    if (error instanceof InsufficientUserAuthenticationError) {
      // a sensitive form: sign in again, then back to the page the form was on
      const back = ctx.get('referer')
      const path = URL.parse(back)?.origin === deps.issuer.origin ? URL.parse(back)!.pathname : surface.basePath
      return deps.auth.startSignIn(ctx, surface, path, maxAgeOf(error))
    }
    throw error
  }
}

function authenticate(ctx: Context, deps: ConsoleDeps, session: ConsoleSession): Promise<AdminCaller> {
  return deps.authority.authenticate({
    method: ctx.method,
    url: new URL(deps.surfaces.admin.resource),
    headers: { authorization: `Bearer ${session.tokens.accessToken}` },
  })
}

/** Why the session could not act: sign in (again, fresher), or not an administrator. */
function refused(ctx: Context, deps: ConsoleDeps, error: unknown, here: string): void {
  const surface = deps.surfaces.admin
  if (error instanceof SignInNeeded) return deps.auth.startSignIn(ctx, surface, here, error.maxAge)
  if (error instanceof InsufficientUserAuthenticationError) return deps.auth.startSignIn(ctx, surface, here, maxAgeOf(error))
  if (error instanceof AccessDeniedError) return notAdministrator(ctx, deps, error.message)
  if (error instanceof OAuthError && error.status === 401) {
    deps.auth.signOut(ctx, surface)
    return deps.auth.startSignIn(ctx, surface, here)
  }
  throw error
}

/** The page of a person who signed in but may not administer. */
function notAdministrator(ctx: Context, deps: ConsoleDeps, reason: string): void {
  deps.auth.signOut(ctx, deps.surfaces.admin)
  sendPage(
    ctx,
    {
      status: 403,
      title: 'Not an administrator',
      content: `<p id="not-admin">Your account is not an administrator of this server, so the console is closed to you (${h(reason)}).</p>
<p>Your own page, where you see the applications you allowed and change your password, is <a href="${h(deps.surfaces.account.basePath)}">${h(deps.surfaces.account.basePath)}</a>.</p>
<p class="muted">An administrator can make your account one: <code>mcp-auth users set-role NAME admin</code> or the console.</p>`,
    },
    deps.branding,
  )
}

async function callback(ctx: Context, deps: ConsoleDeps): Promise<void> {
  const surface = deps.surfaces.admin
  const result = await deps.auth.callback(ctx, surface)
  if ('next' in result) {
    ctx.redirect(result.next)
    return
  }
  if (result.error === 'access_denied') return notAdministrator(ctx, deps, 'the sign-in did not grant administration')
  sendPage(
    ctx,
    { status: 400, title: 'Sign-in failed', content: `${notice(`${result.error}: ${result.description}`, true)}<p><a href="${h(surface.basePath)}">Try again</a></p>` },
    deps.branding,
  )
}

async function signOut(ctx: Context, deps: ConsoleDeps): Promise<void> {
  const surface = deps.surfaces.admin
  const session = await deps.auth.session(ctx, surface).catch(() => undefined)
  if (session !== undefined) {
    try {
      await readConsoleForm(ctx, { origin: deps.issuer.origin, csrfKey: deps.csrfKey, binding: session.sid })
    } catch (error) {
      if (error instanceof FormRefused) {
        sendPage(ctx, { status: 403, title: 'Request refused', content: notice(error.message, true) }, deps.branding)
        return
      }
      throw error
    }
  }
  await deps.auth.endSession(ctx, surface, session)
}
