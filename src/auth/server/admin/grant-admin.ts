import type Provider from 'oidc-provider'
import type { OidcAdapter } from '../../../storage/types.js'
import type { AccountStore } from '../stores/account-store.js'
import type { ConsentStore } from '../stores/consent-store.js'
import { grantDigest } from '../stores/grant-revocations.js'
import { AdminAudit } from './admin-audit.js'
import { AdminError } from './admin-error.js'

/** A grant as an operator sees it: who consented, for which client, to what, until when. */
export interface GrantSummary {
  grantId: string
  accountId: string
  /** The account's name (absent for a deleted account). */
  username?: string
  clientId: string
  clientName?: string
  /** Granted scopes per resource. */
  resources: Record<string, string>
  /** Epoch seconds. */
  createdAt?: number
  expiresAt?: number
}

/** What ended a grant an administration action ended (the audit trail's `grant.revoked` reason). */
export type GrantEndReason = 'administrator' | 'user' | 'account-disabled' | 'account-deleted' | 'client-blocked' | 'client-removed'

/** Models that carry a grant's tokens and codes. */
const GRANT_MODELS = ['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']

/** Removes every token and code issued from a grant, then the grant itself, from storage. */
export async function destroyGrant(adapter: (name: string) => OidcAdapter, grantId: string): Promise<void> {
  for (const model of GRANT_MODELS) await adapter(model).revokeByGrantId(grantId)
  await adapter('Grant').destroy(grantId)
}

/**
 * What was granted, and the end of it. A grant is what a user consented to for one client; ending
 * it removes every token and code issued from it, the grant itself and the remembered consent,
 * then announces `grant.revoked`, so JWT access tokens of the grant are refused by resource
 * servers that check revocation. A delegated login's upstream tokens are revoked too, as a logout
 * or a revocation request does, and before `revoke` resolves: an administration command exits
 * right after it.
 */
export class GrantAdmin {
  readonly #provider: Provider
  readonly #adapter: (name: string) => OidcAdapter
  readonly #accounts: AccountStore
  readonly #consents: ConsentStore
  readonly #endUpstream: ((grantId: string) => Promise<void>) | undefined
  readonly #audit: AdminAudit

  constructor(deps: {
    provider: Provider
    adapter: (name: string) => OidcAdapter
    accounts: AccountStore
    consents: ConsentStore
    /** Ends the upstream session behind a delegated login's grant (revokes its tokens there). */
    endUpstream?: (grantId: string) => Promise<void>
    /** Records `grant.revoked` (default: nothing recorded). */
    audit?: AdminAudit
  }) {
    this.#provider = deps.provider
    this.#adapter = deps.adapter
    this.#accounts = deps.accounts
    this.#consents = deps.consents
    this.#endUpstream = deps.endUpstream
    this.#audit = deps.audit ?? AdminAudit.none()
  }

  /**
   * Live grants, oldest first, optionally of one account (by name; an unknown one: `AdminError`
   * `unknown_account`) or one client: every page of {@link scan}.
   */
  async list(filter: { username?: string; clientId?: string } = {}): Promise<GrantSummary[]> {
    const summaries: GrantSummary[] = []
    let cursor: string | undefined
    do {
      const page = await this.scan(filter, { count: 500, ...(cursor !== undefined ? { cursor } : {}) })
      summaries.push(...page.entries)
      cursor = page.cursor
    } while (cursor !== undefined)
    return summaries.sort((a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0))
  }

  /**
   * One page of live grants: about `count` remembered consents from `cursor` and the cursor of
   * the next page (absent at the end), each consent's grant read (a consent whose grant expired
   * is left out, so a page may hold fewer; `read` says how many consents were read). Of one account or one client, it reads that account's
   * or client's consents only (ConsentStore's indexes), never every grant.
   */
  async scan(filter: { username?: string; clientId?: string }, options: { cursor?: string; count: number }): Promise<{ entries: GrantSummary[]; cursor?: string; read: number }> {
    const account = filter.username === undefined ? undefined : await this.#accounts.findByUsername(filter.username)
    if (filter.username !== undefined && account === undefined) throw new AdminError('unknown_account', `no account named ${filter.username}`)
    const page =
      account !== undefined
        ? await this.#consents.pageOfAccount(account.id, options)
        : filter.clientId !== undefined
          ? await this.#consents.pageOfClient(filter.clientId, options)
          : await this.#consents.page(options)
    const entries: GrantSummary[] = []
    const names = new Map<string, Promise<string | undefined>>()
    for (const { value: consent } of page.entries) {
      if (filter.clientId !== undefined && consent.clientId !== filter.clientId) continue
      const summary = await this.#summary(consent.grantId, names)
      if (summary === undefined) continue
      if (account !== undefined && summary.accountId !== account.id) continue
      if (filter.clientId !== undefined && summary.clientId !== filter.clientId) continue
      entries.push(summary)
    }
    return { entries, read: page.entries.length, ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) }
  }

  /** One live grant, or undefined. */
  async get(grantId: string): Promise<GrantSummary | undefined> {
    return this.#summary(grantId, new Map())
  }

  async #summary(grantId: string, names: Map<string, Promise<string | undefined>>): Promise<GrantSummary | undefined> {
    const grant = await this.#adapter('Grant').find(grantId)
    if (grant === undefined) return undefined
    const accountId = String(grant['accountId'])
    const clientId = String(grant['clientId'])
    const username = (await this.#accounts.findById(accountId))?.username
    let name = names.get(clientId)
    if (name === undefined) {
      name = this.#adapter('Client')
        .find(clientId)
        .then((client) => (typeof client?.['client_name'] === 'string' ? client['client_name'] : undefined))
      names.set(clientId, name)
    }
    const clientName = await name
    return {
      grantId,
      accountId,
      ...(username !== undefined ? { username } : {}),
      clientId,
      ...(clientName !== undefined ? { clientName } : {}),
      resources: (grant['resources'] ?? {}) as Record<string, string>,
      ...(typeof grant['iat'] === 'number' ? { createdAt: grant['iat'] } : {}),
      ...(typeof grant['exp'] === 'number' ? { expiresAt: grant['exp'] } : {}),
    }
  }

  /**
   * Ends one grant; false when there is none with this id. `reason` is what the audit trail's
   * `grant.revoked` says ended it: an administrator by default, or what ended the account or client.
   */
  async revoke(grantId: string, reason: GrantEndReason = 'administrator'): Promise<boolean> {
    const grant = await this.#adapter('Grant').find(grantId)
    if (grant === undefined) return false
    await destroyGrant(this.#adapter, grantId)
    const accountId = String(grant['accountId'])
    const clientId = String(grant['clientId'])
    await this.#consents.forget(accountId, clientId)
    // awaited here; the grant.revoked listener then finds the upstream session already ended
    await this.#endUpstream?.(grantId)
    this.#provider.emit('grant.revoked', undefined, grantId)
    this.#audit.record({
      type: 'grant.revoked',
      result: 'success',
      reason,
      subject: accountId,
      clientId,
      details: { grant: grantDigest(grantId), resources: Object.keys((grant['resources'] ?? {}) as Record<string, string>) },
    })
    return true
  }

  /** Ends every grant of an account (by name) or of a client; resolves with how many. */
  async revokeAll(filter: { username?: string; clientId?: string }, reason: GrantEndReason = 'administrator'): Promise<number> {
    let ended = 0
    for (const grant of await this.list(filter)) if (await this.revoke(grant.grantId, reason)) ended++
    return ended
  }
}
