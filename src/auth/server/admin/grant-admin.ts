import type Provider from 'oidc-provider'
import type { OidcAdapter } from '../../../storage/types.js'
import type { AccountStore } from '../stores/account-store.js'
import type { ConsentStore } from '../stores/consent-store.js'
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

  constructor(deps: {
    provider: Provider
    adapter: (name: string) => OidcAdapter
    accounts: AccountStore
    consents: ConsentStore
    /** Ends the upstream session behind a delegated login's grant (revokes its tokens there). */
    endUpstream?: (grantId: string) => Promise<void>
  }) {
    this.#provider = deps.provider
    this.#adapter = deps.adapter
    this.#accounts = deps.accounts
    this.#consents = deps.consents
    this.#endUpstream = deps.endUpstream
  }

  /** Live grants, oldest first, optionally of one account (by name; an unknown one: `AdminError` `unknown_account`) or one client. */
  async list(filter: { username?: string; clientId?: string } = {}): Promise<GrantSummary[]> {
    const account = filter.username === undefined ? undefined : await this.#accounts.findByUsername(filter.username)
    if (filter.username !== undefined && account === undefined) throw new AdminError('unknown_account', `no account named ${filter.username}`)
    const clients = new Map((await this.#adapter('Client').list()).map(({ id, payload }) => [id, payload['client_name']]))
    const summaries: GrantSummary[] = []
    for (const consent of await this.#consents.list()) {
      const grant = await this.#adapter('Grant').find(consent.grantId)
      if (grant === undefined) continue
      const accountId = String(grant['accountId'])
      const clientId = String(grant['clientId'])
      if (account !== undefined && accountId !== account.id) continue
      if (filter.clientId !== undefined && clientId !== filter.clientId) continue
      const username = (await this.#accounts.findById(accountId))?.username
      const clientName = clients.get(clientId)
      summaries.push({
        grantId: consent.grantId,
        accountId,
        ...(username !== undefined ? { username } : {}),
        clientId,
        ...(typeof clientName === 'string' ? { clientName } : {}),
        resources: (grant['resources'] ?? {}) as Record<string, string>,
        ...(typeof grant['iat'] === 'number' ? { createdAt: grant['iat'] } : {}),
        ...(typeof grant['exp'] === 'number' ? { expiresAt: grant['exp'] } : {}),
      })
    }
    return summaries.sort((a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0))
  }

  /** Ends one grant; false when there is none with this id. */
  async revoke(grantId: string): Promise<boolean> {
    const grant = await this.#adapter('Grant').find(grantId)
    if (grant === undefined) return false
    await destroyGrant(this.#adapter, grantId)
    await this.#consents.forget(String(grant['accountId']), String(grant['clientId']))
    // awaited here; the grant.revoked listener then finds the upstream session already ended
    await this.#endUpstream?.(grantId)
    this.#provider.emit('grant.revoked', undefined, grantId)
    return true
  }

  /** Ends every grant of an account (by name) or of a client; resolves with how many. */
  async revokeAll(filter: { username?: string; clientId?: string }): Promise<number> {
    let ended = 0
    for (const grant of await this.list(filter)) if (await this.revoke(grant.grantId)) ended++
    return ended
  }
}
