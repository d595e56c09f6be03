import type Provider from 'oidc-provider'
import type { OidcAdapter } from '../../../storage/types.js'
import type { AccountStore } from '../stores/account-store.js'
import type { ConsentStore } from '../stores/consent-store.js'
import { AccountAdmin } from './account-admin.js'
import { ClientAdmin } from './client-admin.js'
import { GrantAdmin } from './grant-admin.js'
import type { PasswordLinks } from '../stores/password-links.js'
import type { BlockedClients } from '../stores/blocked-clients.js'
import type { ClientLastUse } from './client-last-use.js'
import { AdminAudit } from './admin-audit.js'

/** The administration operations of one authorization server (the CLI's, and the coming admin API's). */
export interface Administration {
  /** What was granted to whom, and the end of it. */
  readonly grants: GrantAdmin
  /** Registered clients: list, add, remove, block, unblock. */
  readonly clients: ClientAdmin
  /** Accounts' end: delete, disable, enable (each ending the account's grants where it must). */
  readonly accounts: AccountAdmin
  /** Records an administration event, naming the actor of `actingAs` (what a surface does beside the core: a person's own password change). */
  readonly audit: AdminAudit
}

/** Builds the administration operations over what the server already holds. */
export function createAdministration(deps: {
  provider: Provider
  /** An adapter of the provider's models, by model name. */
  adapter: (name: string) => OidcAdapter
  /** The stored clients (the `Client` model's adapter). */
  clients: OidcAdapter
  /** The clients of the server's options. */
  configuredClients: ReadonlyArray<Record<string, unknown> & { client_id: string }>
  accounts: AccountStore
  consents: ConsentStore
  /** Clients an administrator blocked (every node's in-memory set). */
  blocked: BlockedClients
  /** When each client was last used. */
  lastUse: ClientLastUse
  /** One-time set-password links (the admin API's and the console's; the CLI's local mode has none). */
  passwordLinks?: PasswordLinks
  /** Ends the upstream session behind a delegated login's grant (revokes its tokens there). */
  endUpstream?: (grantId: string) => Promise<void>
  /** Records every administration event, naming the actor of `actingAs` (default: nothing recorded). */
  audit?: AdminAudit
}): Administration {
  const audit = deps.audit !== undefined ? { audit: deps.audit } : {}
  const grants = new GrantAdmin({
    provider: deps.provider,
    adapter: deps.adapter,
    accounts: deps.accounts,
    consents: deps.consents,
    ...(deps.endUpstream !== undefined ? { endUpstream: deps.endUpstream } : {}),
    ...audit,
  })
  return {
    audit: deps.audit ?? AdminAudit.none(),
    grants,
    clients: new ClientAdmin({
      provider: deps.provider,
      clients: deps.clients,
      configured: deps.configuredClients,
      grants,
      blocked: deps.blocked,
      lastUse: deps.lastUse,
      ...audit,
    }),
    accounts: new AccountAdmin({ accounts: deps.accounts, grants, ...(deps.passwordLinks !== undefined ? { links: deps.passwordLinks } : {}), ...audit }),
  }
}
