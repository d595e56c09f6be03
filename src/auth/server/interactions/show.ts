import type { Context } from 'koa'
import { escapeHtml } from '../../../views/render-view.js'
import { consentDecision, denyForScopes, finishConsent } from './consent-decision.js'
import { csrfFor, InteractionMismatch, page, type StepContext } from './context.js'

const SCOPE_TEXT: Record<string, string> = {
  openid: 'Confirm your identity',
  profile: 'Your name and username',
  email: 'Your email address',
  offline_access: 'Stay signed in until you revoke access (refresh tokens)',
}

/**
 * GET `{basePath}/:uid`: the page for the step oidc-provider asks for — the login form (or the
 * hand-off to the upstream provider), or the consent page. `error` re-shows the login form with
 * a message (status already set by the caller).
 */
export async function showStep(ctx: Context, { deps, uid }: StepContext, error?: string, username = ''): Promise<void> {
  const { provider, basePath } = deps
  const details = await provider.interactionDetails(ctx.req, ctx.res)
  if (details.uid !== uid) throw new InteractionMismatch()
  const client = await provider.Client.find(String(details.params['client_id']))
  if (client === undefined) throw new InteractionMismatch()
  const clientName = client.clientName ?? client.clientId
  const prompt = details.prompt
  const missing = (prompt.details['missingResourceScopes'] ?? {}) as Record<string, string[]>
  // several: one server's identifiers, the one the client named first (resource-groups)
  const named = ([] as unknown[]).concat(details.params['resource'] ?? [])[0]
  const resource = Object.keys(missing)[0] ?? (typeof named === 'string' ? named : deps.defaultResource)
  // the resource's name when it has one, its URI always: the user sees what the token is for
  const name = deps.scopes.resource(resource)?.name
  const resourceLabel = name === undefined ? `<code>${escapeHtml(resource)}</code>` : `<strong>${escapeHtml(name)}</strong> (<code>${escapeHtml(resource)}</code>)`
  const csrf = csrfFor(deps, uid)
  const abortAction = `${basePath}/${uid}/abort`
  if (prompt.name === 'login' && deps.upstream !== undefined && error === undefined) {
    await deps.upstream.start(ctx, uid)
    return
  }
  if (prompt.name === 'login') {
    page(ctx, error === undefined ? 200 : ctx.status >= 400 ? ctx.status : 401, 'login', 'Sign in', {
      clientName,
      resourceLabel,
      csrf,
      username,
      action: `${basePath}/${uid}/login`,
      abortAction,
      errorBlock: error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>`,
    })
    return
  }
  const decision = await consentDecision(deps, details)
  if (decision.nothingAllowed) return denyForScopes(ctx, deps)
  // Only refused scopes were missing (the rest was consented before): nothing to ask the user.
  if (decision.nothingToAsk && details.session?.accountId !== undefined) return finishConsent(ctx, deps, details, decision)
  const account = details.session?.accountId === undefined ? undefined : await deps.accounts.findById(details.session.accountId)
  // Refresh tokens go to every client allowed the grant (see provider-configuration), so the
  // offline_access line below is shown whether or not the client asked for it.
  const scopes = decision.shown
  const scopeItems =
    [...scopes].map((scope) => `<li><code>${escapeHtml(scope)}</code>${SCOPE_TEXT[scope] ? ` — ${escapeHtml(SCOPE_TEXT[scope])}` : ''}</li>`).join('') +
    (client.grantTypeAllowed('refresh_token') ? `<li>${escapeHtml(SCOPE_TEXT['offline_access'])}</li>` : '')
  const redirectUri = URL.parse(String(details.params['redirect_uri'] ?? ''))
  page(ctx, 200, 'consent', 'Allow access?', {
    clientName,
    clientId: client.clientId,
    resourceLabel,
    username: account?.username ?? details.session?.accountId ?? '',
    redirectHost: redirectUri?.host ?? '(unknown)',
    scopeItems: scopeItems === '' ? '<li>Access with no particular scope</li>' : scopeItems,
    csrf,
    confirmAction: `${basePath}/${uid}/confirm`,
    abortAction,
  })
}
