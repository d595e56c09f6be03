import { createHmac } from 'node:crypto'
import type { Context } from 'koa'
import type Provider from 'oidc-provider'
import type { Observer } from '../../../observe/observer.js'
import type { UpstreamLogin, UpstreamSessions } from '../../delegation/upstream-login.js'
import type { AccountStore } from '../stores/account-store.js'
import type { ConsentStore } from '../stores/consent-store.js'
import type { Limiter } from '../middleware/rate-limiter.js'
import type { ScopePolicy } from '../provider/scope-policy.js'
import type { PageBranding } from '../../../views/branding.js'
import { pageHeaders, renderView } from '../../../views/render-view.js'

export interface InteractionDeps {
  provider: Provider
  accounts: AccountStore
  consents: ConsentStore
  /** What each account may be granted. */
  scopes: ScopePolicy
  /** Key for the forms' CSRF tokens. */
  csrfKey: Buffer
  issuer: URL
  /** `${mountPath}/interaction` */
  basePath: string
  /** Configured resources, to describe the default one on the pages. */
  defaultResource: string
  /** The operator's product name, logo and colours (default: mcp-auth's own). */
  branding?: PageBranding
  loginLimits?: { perAddress: Limiter; perAccount: Limiter }
  /** When set, users log in at this upstream identity provider instead of the local form. */
  upstream?: UpstreamLogin
  /** Ties each consented grant to the upstream session it came from. */
  upstreamSessions?: UpstreamSessions
  /**
   * Clients of the server itself (the console): no consent page, the person is signing in to this
   * server's own pages. What the account may not have is still refused (ScopePolicy).
   */
  firstPartyClients?: readonly string[]
  /** Where sign-ins and consents are recorded (the audit trail). */
  observer?: Observer
}

/** What every step gets: the dependencies and the interaction it acts on. */
export interface StepContext {
  deps: InteractionDeps
  uid: string
}

/** A step of the interaction: answers the request, or throws. */
export type Step = (ctx: Context, step: StepContext, form: URLSearchParams) => Promise<void>

/** The interaction named in the URL is not the browser's current one (or is gone). */
export class InteractionMismatch extends Error {
  override name = 'InteractionMismatch'
}

/** The CSRF token of an interaction's forms: an HMAC of its uid, so nothing is stored. */
export function csrfFor(deps: InteractionDeps, uid: string): string {
  return createHmac('sha256', deps.csrfKey).update(`interaction:${uid}`).digest('base64url')
}

/** Answers with one of our pages, in the operator's branding. */
export function page(ctx: Context, deps: InteractionDeps, status: number, name: 'login' | 'consent' | 'error', title: string, values: Record<string, unknown>): void {
  ctx.status = status
  ctx.set(pageHeaders(deps.branding))
  ctx.type = 'html'
  ctx.body = renderView(name, title, values, deps.branding)
}
