/**
 * The storage room's public list: the embedded lowdb backend, the in-memory one, the durable
 * JSON file adapter beneath lowdb, and the interfaces another backend implements.
 */
export { createLowdbStorage, type LowdbStorageOptions } from './lowdb-storage.js'
export { createMemoryStorage, type MemoryStorageOptions } from './memory-storage.js'
export { DurableJsonFile } from './durable-json-file.js'
export type { AuthStorage, OidcAdapter, OidcPayload, RecordStore } from './types.js'
export { StorageLockedError } from './file-lock.js'
