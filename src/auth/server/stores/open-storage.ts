import { join } from 'node:path'
import { defaults } from '../../../config/defaults.js'
import { createLowdbStorage } from '../../../storage/lowdb-storage.js'
import { removeStaleTempFiles } from '../../../storage/private-file.js'
import type { RedisConnection } from '../../../redis/connection.js'
import type { AuthStorage } from '../../../storage/types.js'
import { isRedisConnection, type ResolvedOptions } from '../options.js'

/** The authorization server's storage, and the Redis connection its nodes share (if any). */
export interface OpenedStorage {
  storage: AuthStorage
  /** Set when the server runs as one node of several (`redis`): rate limits and revocations go through it. */
  connection?: RedisConnection
  /** True when the storage answers (Redis: a PING); embedded storage always does. */
  health(): Promise<boolean>
  /** Closes what was opened here: the storage the server created, the connection it opened. */
  close(): Promise<void>
}

/**
 * Opens what `options` ask for: the given storage, else Redis storage when `redis` is set, else
 * lowdb in the data directory. Redis and its storage are loaded only when used.
 */
export async function openStorage(options: ResolvedOptions): Promise<OpenedStorage> {
  const given = options.storage
  if (options.redis === undefined) {
    if (given !== undefined) return { storage: given, health: async () => true, close: async () => undefined }
    const storage = await createLowdbStorage({ file: join(options.dataDir, defaults.storage.dbFile) })
    // The store's lock is ours now: temp files of an interrupted write of the key files are leftovers.
    for (const name of [defaults.authServer.keys.secretsFile, defaults.authServer.keys.jwksFile]) await removeStaleTempFiles(join(options.dataDir, name))
    return { storage, health: async () => true, close: () => storage.close() }
  }
  const ownsConnection = !isRedisConnection(options.redis)
  const connection = isRedisConnection(options.redis) ? options.redis : await (await import('../../../redis/connection.js')).RedisConnection.connect(options.redis)
  try {
    const storage = given ?? (await import('../../../redis/redis-storage.js')).createRedisStorage({ connection })
    return {
      storage,
      connection,
      health: () => connection.ping(),
      async close() {
        if (given === undefined) await storage.close()
        if (ownsConnection) await connection.close()
      },
    }
  } catch (error) {
    if (ownsConnection) await connection.close()
    throw error
  }
}
