/**
 * `mcp-auth/auth-server`: the OAuth 2.1 authorization server for MCP and its storage seam.
 * Every name here is public; the rest of src/auth/server is internal.
 */
export { createAuthorizationServer } from './auth/server/create-authorization-server.js'
export { createMainJob } from './app/main-job.js'
export type { MainJob, MainJobOptions, ProtectedResourceSpec } from './app/main-job.js'
// `mcp-auth gateway` as a library call: a stdio MCP server behind this authorization server (or another)
export { createGatewayJob } from './app/gateway-job.js'
export type { GatewayJob, GatewayJobOptions, GatewayCommand } from './app/gateway-job.js'
export type { AuthorizationServer } from './auth/server/create-authorization-server.js'
export { authorizationServerOptionsSchema } from './auth/server/options.js'
export type { AuthorizationServerOptions, AuthorizationServerConfig } from './auth/server/options.js'
export { AccountStore } from './auth/server/stores/account-store.js'
export { AccountValuesStore } from './auth/server/stores/account-values-store.js'
export type { AccountValueName } from './auth/server/stores/account-values-store.js'
export { AccountValueError } from './auth/server/stores/account-value-error.js'
export type { AccountValueErrorCode } from './auth/server/stores/account-value-error.js'
export { GrantAdmin } from './auth/server/admin/grant-admin.js'
export type { GrantSummary } from './auth/server/admin/grant-admin.js'
export { ResourceStore } from './auth/server/stores/resource-store.js'
export type { StoredResource } from './auth/server/stores/resource-store.js'
export type { Account } from './auth/server/stores/account-store.js'
export { loadSigningKeys, rotateSigningKeys } from './auth/server/keys/signing-keys.js'
export {
  createLowdbStorage,
  createMemoryStorage,
  createRedisStorage,
  RedisConnection,
  StorageLockedError,
  StorageUnavailableError,
  StoreDamagedError,
  inspectEmbeddedStore,
  backupEmbeddedStore,
  restoreEmbeddedStore,
} from './storage/index.js'
export type {
  AuthStorage,
  EmbeddedStorage,
  EmbeddedStoreStats,
  InspectedStore,
  BackupWritten,
  OidcAdapter,
  OidcPayload,
  RecordStore,
  RedisConnectionOptions,
  RedisStorageOptions,
  StorageStats,
} from './storage/index.js'
export {
  OAuthError,
  InvalidRequestError,
  InvalidTokenError,
  InsufficientScopeError,
  AccessDeniedError,
  TooManyRequestsError,
  TemporarilyUnavailableError,
} from './auth/errors.js'
