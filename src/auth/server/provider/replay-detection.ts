import { createHash } from 'node:crypto'
import type Provider from 'oidc-provider'
import type { OidcAdapter } from '../../../storage/types.js'

type Unique = (iss: string, jti: string, exp: number) => Promise<boolean>

/**
 * Makes oidc-provider's replay detection (`ReplayDetection.unique`: DPoP proofs at its endpoints,
 * `private_key_jwt` / `client_secret_jwt` client assertions, attestations, and our JWT bearer
 * grant's assertions) an atomic first-writer-wins claim in the store. oidc-provider's own finds
 * then upserts: twelve uses of one value at once on Redis all found nothing and all passed. The
 * record id is oidc-provider's (SHA-256 of `iss` and `jti`, base64url) and it lives until `exp`,
 * so the claims expire instead of piling up. A storage outage is the adapter's 503.
 */
export function atomicReplayDetection(provider: Provider, adapter: OidcAdapter, now: () => number = Date.now): void {
  const unique: Unique = async (iss, jti, exp) => {
    const id = createHash('sha256').update(`${iss}${jti}`).digest('base64url')
    return adapter.create(id, { iss, kind: 'ReplayDetection' }, Math.max(1, Math.ceil(exp - now() / 1000)))
  }
  ;(provider.ReplayDetection as unknown as { unique: Unique }).unique = unique
}
