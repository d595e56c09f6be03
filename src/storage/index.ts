/**
 * The storage room's public list: the embedded lowdb backend, the in-memory one, the Redis one
 * (with its connection) for several processes, the durable JSON file adapter beneath lowdb, the
 * message bus between processes, and the interfaces another backend implements.
 */
export { createLowdbStorage, type LowdbStorageOptions } from './lowdb-storage.js'
export { createMemoryStorage, type MemoryStorageOptions } from './memory-storage.js'
export { DurableJsonFile } from './durable-json-file.js'
export type { AuthStorage, OidcAdapter, OidcPayload, RecordStore } from './types.js'
export { StorageLockedError } from './file-lock.js'
export { createRedisStorage, type RedisStorageOptions } from '../redis/redis-storage.js'
export { RedisConnection, type RedisConnectionOptions } from '../redis/connection.js'
export { StorageUnavailableError, isStorageUnavailable } from './errors.js'
export { InProcessMessageBus, type MessageBus } from './message-bus.js'
