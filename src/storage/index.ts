/**
 * The storage room's public list: the embedded lowdb backend (with the inspection, backup and
 * restore of its files), the in-memory one, the Redis one (with its connection) for several
 * processes, the message bus between processes, and the interfaces another backend implements.
 */
export { createLowdbStorage, type EmbeddedStorage, type LowdbStorageOptions } from './lowdb-storage.js'
export type { EmbeddedStoreStats } from './embedded/journaled-store-file.js'
export { StoreDamagedError } from './embedded/store-damaged-error.js'
export { inspectEmbeddedStore, type InspectedStore } from './embedded/inspect-store.js'
export { backupEmbeddedStore, type BackupWritten } from './embedded/backup-store.js'
export { restoreEmbeddedStore } from './embedded/restore-store.js'
export { createMemoryStorage, type MemoryStorageOptions } from './memory-storage.js'
export type { AuthStorage, OidcAdapter, OidcPayload, RecordStore, StorageStats } from './types.js'
export { StorageLockedError } from './file-lock.js'
export { createRedisStorage, type RedisStorageOptions } from '../redis/redis-storage.js'
export { RedisConnection, type RedisConnectionOptions } from '../redis/connection.js'
export { StorageUnavailableError, isStorageUnavailable } from './errors.js'
export { InProcessMessageBus, type MessageBus } from './message-bus.js'
