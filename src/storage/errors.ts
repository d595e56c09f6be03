// The storage-outage error moved to sessions/ (issue 29): the MCP transports answer it with 503 too,
// and may not import storage/. Re-exported here so the storage side keeps its import.
export { StorageUnavailableError, isStorageUnavailable } from '../sessions/storage-unavailable.js'
