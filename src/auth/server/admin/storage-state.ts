import type { RedisConnection } from '../../../redis/connection.js'
import type { AuthStorage } from '../../../storage/types.js'

/**
 * What the storage says of itself at no cost that grows with it, for `GET /state`: the embedded
 * store its record counts and file sizes (kept in memory), Redis its key prefix and whether it
 * answers a PING, another backend its own `stats()` when it has one.
 */
export async function storageState(storage: AuthStorage, connection: RedisConnection | undefined): Promise<Record<string, unknown>> {
  if (connection !== undefined) return { backend: 'redis', prefix: connection.prefix, reachable: await connection.ping() }
  const stats = storage.stats?.() as (ReturnType<NonNullable<AuthStorage['stats']>> & { snapshotBytes?: number; journalBytes?: number }) | undefined
  if (stats === undefined) return { backend: 'custom' }
  return {
    backend: stats.backend,
    models: stats.models,
    collections: stats.collections,
    ...(stats.snapshotBytes !== undefined ? { snapshot_bytes: stats.snapshotBytes } : {}),
    ...(stats.journalBytes !== undefined ? { journal_bytes: stats.journalBytes } : {}),
  }
}
