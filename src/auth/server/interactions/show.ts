import type { Context } from 'koa'
import { breakableUrl } from '../../../views/breakable-url.js'
import { escapeHtml } from '../../../views/render-view.js'
import type { ResolvedResource } from '../options.js'
import { clientDisplayName } from './client-display-name.js'
import { consentDecision, denyForScopes, finishConsent } from './consent-decision.js'
import { csrfFor, InteractionMismatch, page, type StepContext } from './context.js'
import { describeScope } from './describe-scope.js'

/** A resource as the pages name it: its name when it has one, its URI always (host never broken). */
function resourceLabel(indicator: string, resource: ResolvedResource | undefined): string {
  const url = `<code class="url">${breakableUrl(indicator)}</code>`
  return resource?.name === undefined ? url : `<strong>${escapeHtml(resource.name)}</strong> (${url})`
}

/** One resource of the consent page: name, URL, and what it is when the configuration says. */
function resourceItem(indicator: string, resource: ResolvedResource | undefined): string {
  const description = resource?.description === undefined ? '' : `<br><span class="muted">${escapeHtml(resource.description)}</span>`
  return `<li class="resource">${resourceLabel(indicator, resource)}${description}</li>`
}

/** One scope of the consent page: what it allows, its name in small print. */
function scopeItem(scope: string, resources: readonly ResolvedResource[]): string {
  return `<li>${escapeHtml(describeScope(scope, resources))} <code class="muted small">${escapeHtml(scope)}</code></li>`
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
  const clientName = clientDisplayName(client.clientId, client.clientName)
  const prompt = details.prompt
  const missing = (prompt.details['missingResourceScopes'] ?? {}) as Record<string, string[]>
  // several: one server's identifiers, the one the client named first (resource-groups)
  const named = ([] as unknown[]).concat(details.params['resource'] ?? [])[0]
  const resource = Object.keys(missing)[0] ?? (typeof named === 'string' ? named : deps.defaultResource)
  const csrf = csrfFor(deps, uid)
  const abortAction = `${basePath}/${uid}/abort`
  if (prompt.name === 'login' && deps.upstream !== undefined && error === undefined) {
    await deps.upstream.start(ctx, uid)
    return
  }
  if (prompt.name === 'login') {
    page(ctx, deps, error === undefined ? 200 : ctx.status >= 400 ? ctx.status : 401, 'login', 'Sign in', {
      clientName,
      resourceLabel: resourceLabel(resource, deps.scopes.resource(resource)),
      csrf,
      username,
      action: `${basePath}/${uid}/login`,
      abortAction,
      errorBlock: error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>`,
    })
    return
  }
  const decision = await consentDecision(deps, details)
  if (decision.nothingAllowed) return denyForScopes(ctx, deps, details)
  // Only refused scopes were missing (the rest was consented before), or the server's own console: nothing to ask the user.
  const firstParty = deps.firstPartyClients?.includes(client.clientId) === true
  if ((decision.nothingToAsk || firstParty) && details.session?.accountId !== undefined) return finishConsent(ctx, deps, details, decision)
  const account = details.session?.accountId === undefined ? undefined : await deps.accounts.findById(details.session.accountId)
  const granted = Object.keys(decision.grant).length > 0 ? Object.keys(decision.grant) : [resource]
  // one server's identifiers (a resource and its aliases, resource-groups) are one line: the first
  const indicators = granted.filter((indicator, i) => granted.slice(0, i).every((kept) => !deps.scopes.group(kept).includes(indicator)))
  const resources = indicators.map((indicator) => deps.scopes.resource(indicator)).filter((found) => found !== undefined)
  // Refresh tokens go to every client allowed the grant (see provider-configuration), so the
  // offline_access line below is shown whether or not the client asked for it.
  const scopes = decision.shown.filter((scope) => scope !== 'offline_access')
  if (client.grantTypeAllowed('refresh_token')) scopes.push('offline_access')
  const refused = [...new Set([...Object.values(decision.reject).flat(), ...decision.oidcReject])]
  const notGranted =
    refused.length === 0
      ? ''
      : `<p class="not-granted" id="not-granted">Not available to your account: ${refused
          .map((scope) => `<code>${escapeHtml(scope)}</code> (${escapeHtml(describeScope(scope, resources))})`)
          .join(', ')}. The application gets the rest.</p>`
  const redirectUri = URL.parse(String(details.params['redirect_uri'] ?? ''))
  page(ctx, deps, 200, 'consent', 'Allow access?', {
    clientName,
    clientId: client.clientId,
    resourceItems: indicators.map((indicator) => resourceItem(indicator, deps.scopes.resource(indicator))).join(''),
    username: account?.username ?? details.session?.accountId ?? '',
    redirectHost: redirectUri?.host ?? '(unknown)',
    scopeItems: scopes.length === 0 ? '<li>Access with no particular scope</li>' : scopes.map((scope) => scopeItem(scope, resources)).join(''),
    notGranted,
    csrf,
    confirmAction: `${basePath}/${uid}/confirm`,
    abortAction,
  })
}
