import type { OidcAdapter } from '../../../../storage/types.js'
import type { PrivateJwk } from '../../keys/signing-keys.js'
import type { AccountStore } from '../../stores/account-store.js'
import type { ConsentStore } from '../../stores/consent-store.js'
import type { ScopePolicy } from '../scope-policy.js'

/** What the oidc-provider configuration is built from, beside the resolved options. */
export interface ProviderConfigurationDeps {
  adapter: new (name: string) => OidcAdapter
  jwks: { keys: PrivateJwk[] }
  cookieKeys: string[]
  accounts: AccountStore
  consents: ConsentStore
  scopes: ScopePolicy
  /** With delegated login: whether the account must sign in at the upstream again (its upstream session ended). */
  upstreamLoginNeeded?: (accountId: string) => Promise<boolean>
  /** 32 bytes every node shares: the key of oidc-provider's DPoP nonces. */
  dpopNonceSecret: Buffer
}
