import { createHash } from 'node:crypto'
import type Provider from 'oidc-provider'
import type { RecordStore } from '../../storage/types.js'

const REVOKED = 'revoked-grants'

/** The `gid` claim of our JWT access tokens: a digest of their grant's id (the id itself stays inside). */
export function grantDigest(grantId: string): string {
  return createHash('sha256').update(`grant:${grantId}`).digest('base64url').slice(0, 22)
}

/**
 * Grants revoked while JWT access tokens issued from them may still be unexpired. oidc-provider
 * does not store JWT access tokens, so revoking a grant cannot reach them; this list can. Filled by
 * `grant.revoked` (code replay, refresh reuse, revocation, logout, upstream revocation), kept in
 * memory for an O(1) check per request, persisted so a restart does not forget, and each entry
 * dropped once every token of its grant has expired (`accessTokenTtlSeconds`).
 */
export class GrantRevocations {
  readonly #records: RecordStore
  readonly #ttlMs: number
  readonly #now: () => number
  readonly #revoked = new Map<string, number>()

  private constructor(records: RecordStore, ttlSeconds: number, now: () => number) {
    this.#records = records
    this.#ttlMs = ttlSeconds * 1000
    this.#now = now
  }

  static async load(records: RecordStore, accessTokenTtlSeconds: number, now: () => number = Date.now): Promise<GrantRevocations> {
    const revocations = new GrantRevocations(records, accessTokenTtlSeconds, now)
    for (const entry of await records.list<{ gid: string; until: number }>(REVOKED)) {
      if (entry.until > now()) revocations.#revoked.set(entry.gid, entry.until)
      else await records.delete(REVOKED, entry.gid)
    }
    return revocations
  }

  /** Records every revocation the provider announces. */
  listen(provider: Provider): void {
    provider.on('grant.revoked', (_ctx: unknown, grantId: string) => {
      void this.revoke(grantId).catch((error: unknown) => provider.emit('server_error', undefined, error))
    })
  }

  async revoke(grantId: string): Promise<void> {
    const gid = grantDigest(grantId)
    const until = this.#now() + this.#ttlMs
    this.#revoked.set(gid, until)
    await this.#records.put(REVOKED, gid, { gid, until })
  }

  /** True when a token carrying this `gid` claim comes from a revoked grant. */
  isRevoked(gid: unknown): boolean {
    if (typeof gid !== 'string') return false
    const until = this.#revoked.get(gid)
    if (until === undefined) return false
    if (until > this.#now()) return true
    this.#revoked.delete(gid)
    void this.#records.delete(REVOKED, gid).catch(() => undefined)
    return false
  }
}
