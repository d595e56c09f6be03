import { createHash } from 'node:crypto'
import type { RedisConnection } from './connection.js'
import type { DpopReplayCache } from '../auth/resource/dpop-replay-cache.js'

/**
 * The DPoP replay cache of a deployment of several processes: one Redis key per proof
 * (`{prefix}dpop:{digest of key thumbprint and jti}`, `SET NX` with the proof's remaining window
 * as expiry), so a proof used on one node is a replay on every other. One round trip per request.
 * While Redis is unreachable `remember` rejects with StorageUnavailableError (the request is
 * refused with 503, never let through unchecked). Redis holds one small key per proof for at
 * most twice the `iat` window: bound a client's request rate at the proxy to bound that.
 *
 * @example
 * new BearerAuth({ verifier, resourceMetadataUrl, dpop: { replayCache: new RedisDpopReplayCache(redis) } })
 */
export class RedisDpopReplayCache implements DpopReplayCache {
  readonly #redis: RedisConnection

  constructor(connection: RedisConnection) {
    this.#redis = connection
  }

  async remember(jkt: string, jti: string, expiresAt: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(expiresAt - Date.now()))
    const key = this.#redis.key('dpop', createHash('sha256').update(`${jkt} ${jti}`).digest('base64url'))
    return (await this.#redis.run((client) => client.set(key, '1', 'PX', ttl, 'NX'))) === 'OK'
  }
}
