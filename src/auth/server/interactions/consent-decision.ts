import type { Context } from 'koa'
import { requestFacts } from '../provider/audit-provider-events.js'
import { grantDigest } from '../stores/grant-revocations.js'
import type { InteractionDeps } from './context.js'

type Details = Awaited<ReturnType<InteractionDeps['provider']['interactionDetails']>>

/** What the consent step may grant: what was asked and is missing, narrowed to what the account may have. */
export interface ConsentDecision {
  /** Resource scopes to ask the user for, per resource indicator. */
  grant: Record<string, string[]>
  /** Requested resource scopes the account may not have: recorded as rejected, never granted. */
  reject: Record<string, string[]>
  /** Missing OIDC-level scopes to grant (oidc-provider lists resource scope names here too). */
  oidcGrant: string[]
  /** Resource scope names among them the account may not have. */
  oidcReject: string[]
  /** What the consent page lists: OIDC scopes proper and the resource scopes to grant. */
  shown: string[]
  /** The request named resource scopes and the account may have none of them: access_denied. */
  nothingAllowed: boolean
  /** Nothing left to ask (only refused scopes were missing): finish without showing the page. */
  nothingToAsk: boolean
}

/** Applies the account's scopes (ScopePolicy) to the consent prompt oidc-provider raised. */
export async function consentDecision(deps: InteractionDeps, details: Details): Promise<ConsentDecision> {
  const account = details.session?.accountId === undefined ? undefined : await deps.accounts.findById(details.session.accountId)
  const missing = (details.prompt.details['missingResourceScopes'] ?? {}) as Record<string, string[]>
  const requested = new Set(String(details.params['scope'] ?? '').split(' '))
  const named = details.params['resource']
  const indicators = new Set([...Object.keys(missing), ...(Array.isArray(named) ? named.map(String) : typeof named === 'string' ? [named] : [deps.defaultResource])])
  const grant: Record<string, string[]> = {}
  const reject: Record<string, string[]> = {}
  const allowedAnywhere = new Set<string>()
  let asked = false
  let allowedAny = false
  for (const indicator of indicators) {
    const allowed = deps.scopes.accountScopes(account, indicator)
    for (const scope of allowed) allowedAnywhere.add(scope)
    const scopes = missing[indicator] ?? []
    grant[indicator] = scopes.filter((scope) => allowed.has(scope))
    reject[indicator] = scopes.filter((scope) => !allowed.has(scope))
    for (const scope of deps.scopes.resource(indicator)?.scopes ?? []) {
      if (!requested.has(scope)) continue
      asked = true
      if (allowed.has(scope)) allowedAny = true
    }
  }
  const resourceScopes = deps.scopes.resourceScopes
  const oidcMissing = (details.prompt.details['missingOIDCScope'] as string[] | undefined) ?? []
  const oidcGrant = oidcMissing.filter((scope) => !resourceScopes.has(scope) || allowedAnywhere.has(scope))
  const oidcReject = oidcMissing.filter((scope) => resourceScopes.has(scope) && !allowedAnywhere.has(scope))
  const oidcProper = oidcGrant.filter((scope) => !resourceScopes.has(scope) && scope !== 'openid' && scope !== 'offline_access')
  const claimsMissing = (details.prompt.details['missingOIDCClaims'] as string[] | undefined) ?? []
  const resourceGrant = [...new Set(Object.values(grant).flat())]
  const nothingAllowed = asked && !allowedAny
  const nothingToAsk = resourceGrant.length === 0 && oidcProper.length === 0 && claimsMissing.length === 0
  return { grant, reject, oidcGrant, oidcReject, shown: [...new Set([...oidcProper, ...resourceGrant])], nothingAllowed, nothingToAsk }
}

/** Saves the consent (granting `decision.grant`, rejecting `decision.reject`) and finishes the interaction. */
export async function finishConsent(ctx: Context, deps: InteractionDeps, details: Details, decision: ConsentDecision): Promise<void> {
  const { provider } = deps
  const accountId = details.session!.accountId
  const clientId = String(details.params['client_id'])
  const promptDetails = details.prompt.details
  const grant = (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId })
  if (decision.oidcGrant.length > 0) grant.addOIDCScope(decision.oidcGrant.join(' '))
  if (decision.oidcReject.length > 0) grant.rejectOIDCScope(decision.oidcReject.join(' '))
  const missingClaims = promptDetails['missingOIDCClaims'] as string[] | undefined
  if (missingClaims) grant.addOIDCClaims(missingClaims)
  for (const [indicator, scopes] of Object.entries(decision.grant)) if (scopes.length > 0) grant.addResourceScope(indicator, scopes.join(' '))
  for (const [indicator, scopes] of Object.entries(decision.reject)) if (scopes.length > 0) grant.rejectResourceScope(indicator, scopes.join(' '))
  const grantId = await grant.save()
  await deps.consents.remember(accountId, clientId, grantId)
  await deps.upstreamSessions?.bindGrant(accountId, grantId)
  const resources = Object.keys(decision.grant).filter((indicator) => decision.grant[indicator]!.length > 0)
  const rejected = [...new Set([...Object.values(decision.reject).flat(), ...decision.oidcReject])]
  deps.observer?.audit({
    type: 'consent.given',
    result: 'success',
    subject: accountId,
    clientId,
    ...(resources.length === 1 ? { resource: resources[0]! } : {}),
    scopes: [...new Set([...decision.oidcGrant, ...Object.values(decision.grant).flat()])],
    ...requestFacts(ctx),
    details: { grant: grantDigest(grantId), resources, ...(rejected.length > 0 ? { rejected } : {}) },
  })
  await provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true })
}

/** Ends the interaction with access_denied: the account may have none of what was asked. */
export async function denyForScopes(ctx: Context, deps: InteractionDeps, details: Details): Promise<void> {
  recordDenial(ctx, deps, details, 'no_allowed_scopes')
  const result = { error: 'access_denied', error_description: 'the account may not be granted any of the requested scopes' }
  await deps.provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false })
}

/** `consent.denied`, once: by the person (`user_denied`) or because the account may have none of it (`no_allowed_scopes`). */
export function recordDenial(ctx: Context, deps: InteractionDeps, details: Details, reason: 'user_denied' | 'no_allowed_scopes'): void {
  const scope = details.params['scope']
  deps.observer?.audit({
    type: 'consent.denied',
    result: 'refused',
    reason,
    ...(details.session?.accountId !== undefined ? { subject: details.session.accountId } : {}),
    ...(typeof details.params['client_id'] === 'string' ? { clientId: details.params['client_id'] } : {}),
    ...(typeof details.params['resource'] === 'string' ? { resource: details.params['resource'] } : {}),
    ...(typeof scope === 'string' && scope !== '' ? { scopes: scope.split(' ') } : {}),
    ...requestFacts(ctx),
  })
}
