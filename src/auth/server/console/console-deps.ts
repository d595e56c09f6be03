import type { AuditTrail } from '../../../observe/audit-event.js'
import type { PageBranding } from '../../../views/branding.js'
import type { BearerAuth } from '../../resource/bearer-auth.js'
import type { Administration } from '../admin/create-administration.js'
import type { AdminAuthority, AdminCaller } from '../admin-api/admin-caller.js'
import type { ResolvedResource } from '../options.js'
import type { Account, AccountStore } from '../stores/account-store.js'
import type { PasswordLinks } from '../stores/password-links.js'
import type { ResourceStore } from '../stores/resource-store.js'
import type { ConsoleAuth, ConsoleSession, ConsoleSurface } from './console-auth.js'
import type { FirstAdministrator } from './first-administrator.js'
import type { Context } from 'koa'

/** What the console's pages act on: the server's administration core, its stores, the token checks. */
export interface ConsoleDeps {
  issuer: URL
  mountPath: string
  administration: Administration
  accounts: AccountStore
  /** The admin API's check, the same for every page of `/admin`. */
  authority: AdminAuthority
  /** The check of people's own page's tokens (audience `${issuer}/account`, scope, revocation). */
  accountBearer: BearerAuth
  resources: ResourceStore
  configuredResources: readonly ResolvedResource[]
  passwordLinks: PasswordLinks
  /** Deletes an account with everything that is its (grants, gateway values). */
  deleteAccount(account: Account, rev?: number): Promise<{ grantsEnded: number }>
  /** Key of the forms' CSRF tokens. */
  csrfKey: Buffer
  branding?: PageBranding
  auth: ConsoleAuth
  /** The first administrator's one-time setup link. */
  firstAdministrator: FirstAdministrator
  surfaces: { admin: ConsoleSurface; account: ConsoleSurface }
  /** Where the server keeps its security events (the audit page): the observer's trail, once attached. */
  auditTrail(): AuditTrail | undefined
  /** The server's state and keys, as the admin API shows them (GET /state, GET /keys). */
  server: { state(): Promise<Record<string, unknown>>; keys(): Promise<Record<string, unknown>> }
}

/** One request to an administrator's page, after the token check. */
export interface AdminPageRequest {
  ctx: Context
  deps: ConsoleDeps
  caller: Extract<AdminCaller, { kind: 'person' }>
  session: ConsoleSession
  csrf: string
  /** Path parameters of the route, decoded. */
  params: readonly string[]
  /** The POSTed form, checked (same origin, CSRF). */
  form: URLSearchParams
  /** The navigation of the console, the current page marked. */
  nav(current: string): string
}

/** A page or a form handler of the console. */
export type AdminPage = (request: AdminPageRequest) => Promise<void>
