import type { AuthStorage } from './types.js'

/** What {@link migrateStorage} copied: records per oidc-provider model and per collection. */
export interface MigrationCounts {
  models: Record<string, number>
  collections: Record<string, number>
}

/**
 * Copies everything `from` holds into `to`: every live oidc-provider record with the lifetime it
 * has left (expired ones are skipped), and every record of every collection. Ids and values go
 * over as stored — credential ids stay hashed, client secrets stay sealed with the data
 * directory's key — so the destination serves the same clients, accounts, grants and tokens once
 * the nodes use the same key files. `from` must have `entries` (the lowdb store does).
 *
 * @example
 * const counts = await migrateStorage(await createLowdbStorage({ file }), createRedisStorage({ connection }))
 */
export async function migrateStorage(from: AuthStorage, to: AuthStorage, options: { now?: () => number } = {}): Promise<MigrationCounts> {
  if (from.entries === undefined) throw new TypeError('the source storage cannot list its records (entries): migrate from the lowdb store')
  const now = options.now ?? Date.now
  const counts: MigrationCounts = { models: {}, collections: {} }
  for await (const entry of from.entries()) {
    if (entry.kind === 'model') {
      const left = entry.expiresAt === undefined ? undefined : (entry.expiresAt - now()) / 1000
      if (left !== undefined && left <= 0) continue
      await to.adapter(entry.model).upsert(entry.id, entry.payload, left === undefined ? undefined : Math.max(1, Math.ceil(left)))
      counts.models[entry.model] = (counts.models[entry.model] ?? 0) + 1
    } else {
      await to.records.put(entry.collection, entry.id, entry.value)
      counts.collections[entry.collection] = (counts.collections[entry.collection] ?? 0) + 1
    }
  }
  return counts
}
