import type { AuthInfo } from '../../../auth-info/auth-info.js'
import { defaults } from '../../../config/defaults.js'
import type { AuditActor } from '../../../observe/audit-event.js'
import { AccessDeniedError, InsufficientUserAuthenticationError } from '../../errors.js'
import type { BearerAuth, BearerRequest } from '../../resource/bearer-auth.js'
import type { Account, AccountStore } from '../stores/account-store.js'

/** Who is calling the admin API: an administrator (a person) or a machine client an administrator designated. */
export type AdminCaller =
  | {
      kind: 'person'
      account: Account
      /** The client the person signed in with (the CLI, the console). */
      clientId: string
      /** When the person signed in (epoch seconds), from the token's `auth_time`. */
      authTime: number | undefined
      token: AuthInfo
    }
  | { kind: 'machine'; clientId: string; token: AuthInfo }

/** What the caller check needs: the bearer check of the admin API's resource, the accounts, the clients. */
export interface AdminAuthorityDeps {
  /** Audience the admin API, scope `mcp-auth:admin`, revocation checked: a token checked like any resource's. */
  bearer: BearerAuth
  accounts: AccountStore
  /** Whether a machine client may still act (registered, not blocked): its tokens have no grant to revoke. */
  clientMayAct(clientId: string): Promise<boolean>
  /** How recent a person's sign-in must be (seconds): for any action, for a sensitive one. Default `authServer.admin`'s. */
  loginAge?: { maxLoginAgeSeconds: number; sensitiveLoginAgeSeconds: number }
  now?: () => number
}

/**
 * Decides who an admin API request comes from and whether they may act now. The token is checked
 * like any resource's (signature, issuer, audience, expiry, DPoP when bound, scope, the grant's
 * revocation); then, at every request, what a token cannot say: that the person is still an
 * administrator and not disabled, that the machine client is still registered and not blocked.
 * How recent the person's sign-in is, the operations ask ({@link requireRecentLogin}).
 */
export class AdminAuthority {
  readonly #deps: AdminAuthorityDeps
  readonly #now: () => number
  readonly #loginAge: { maxLoginAgeSeconds: number; sensitiveLoginAgeSeconds: number }

  constructor(deps: AdminAuthorityDeps) {
    this.#deps = deps
    this.#now = deps.now ?? Date.now
    const { maxLoginAgeSeconds, sensitiveLoginAgeSeconds } = defaults.authServer.admin
    this.#loginAge = deps.loginAge ?? { maxLoginAgeSeconds, sensitiveLoginAgeSeconds }
  }

  get bearer(): BearerAuth {
    return this.#deps.bearer
  }

  async authenticate(request: BearerRequest): Promise<AdminCaller> {
    const token = await this.#deps.bearer.authenticate(request)
    const claims = token.claims ?? {}
    const clientId = token.clientId
    // a person's token carries its grant (gid); a client_credentials token has none
    if (typeof claims['gid'] !== 'string') {
      if (!(await this.#deps.clientMayAct(clientId))) throw new AccessDeniedError(`the client ${clientId} is blocked or no longer registered`)
      return { kind: 'machine', clientId, token }
    }
    const account = typeof claims['sub'] === 'string' ? await this.#deps.accounts.findById(claims['sub']) : undefined
    if (account === undefined) throw new AccessDeniedError('the account of this token no longer exists')
    if (account.disabled === true) throw new AccessDeniedError(`the account ${account.username} is disabled`)
    if (account.role !== 'admin') throw new AccessDeniedError(`the account ${account.username} is not an administrator`)
    const authTime = typeof claims['auth_time'] === 'number' ? claims['auth_time'] : undefined
    if (account.sessionsNotBefore !== undefined && (authTime ?? 0) < account.sessionsNotBefore) {
      throw new InsufficientUserAuthenticationError('the sign-in of this token was ended (the password changed since): sign in again', 0)
    }
    const caller: AdminCaller = { kind: 'person', account, clientId, authTime, token }
    this.requireRecentLogin(caller, this.#loginAge.maxLoginAgeSeconds)
    return caller
  }

  /** {@link requireRecentLogin} for a sensitive action: the server's `sensitiveLoginAgeSeconds`. */
  requireSensitiveLogin(caller: AdminCaller): void {
    this.requireRecentLogin(caller, this.#loginAge.sensitiveLoginAgeSeconds)
  }

  /**
   * Throws 401 `insufficient_user_authentication` with `max_age` (RFC 9470) when a person signed in
   * longer ago than `maxAgeSeconds` (or the token does not say when): the client signs them in
   * again and retries. A machine client has no sign-in to age.
   */
  requireRecentLogin(caller: AdminCaller, maxAgeSeconds: number): void {
    if (caller.kind === 'machine') return
    const age = caller.authTime === undefined ? Number.POSITIVE_INFINITY : this.#now() / 1000 - caller.authTime
    if (age <= maxAgeSeconds) return
    throw new InsufficientUserAuthenticationError(
      maxAgeSeconds <= this.#loginAge.sensitiveLoginAgeSeconds
        ? `this action needs a sign-in in the last ${maxAgeSeconds} s: sign in again`
        : `administration needs a sign-in in the last ${Math.round(maxAgeSeconds / 60)} min: sign in again`,
      maxAgeSeconds,
    )
  }
}

/** Who did it, in the words an audit line or a message uses. */
export function callerName(caller: AdminCaller): string {
  return caller.kind === 'person' ? caller.account.username : `client ${caller.clientId}`
}

/** The caller as the audit trail names an actor: the person (and the client they used) or the machine client. */
export function callerActor(caller: AdminCaller, channel: 'admin-api' | 'console'): AuditActor {
  return caller.kind === 'person' ? { subject: caller.account.id, username: caller.account.username, clientId: caller.clientId, channel } : { clientId: caller.clientId, channel }
}
