/**
 * `mcp-auth/auth-server`: the OAuth 2.1 authorization server for MCP and its storage seam.
 * Every name here is public; the rest of src/auth/server is internal.
 */
export { createAuthorizationServer } from './create-authorization-server.js'
export { createMainJob } from '../../app/main-job.js'
export type { MainJob, MainJobOptions } from '../../app/main-job.js'
export type { AuthorizationServer } from './create-authorization-server.js'
export { authorizationServerOptionsSchema } from './options.js'
export type { AuthorizationServerOptions, AuthorizationServerConfig } from './options.js'
export { AccountStore } from './stores/account-store.js'
export { GrantAdmin } from './admin/grant-admin.js'
export type { GrantSummary } from './admin/grant-admin.js'
export { ResourceStore } from './stores/resource-store.js'
export type { StoredResource } from './stores/resource-store.js'
export type { Account } from './stores/account-store.js'
export { loadSigningKeys, rotateSigningKeys } from './keys/signing-keys.js'
export { createLowdbStorage, createMemoryStorage, createRedisStorage, RedisConnection, StorageLockedError, StorageUnavailableError } from '../../storage/index.js'
export type { AuthStorage, OidcAdapter, OidcPayload, RecordStore, RedisConnectionOptions, RedisStorageOptions } from '../../storage/index.js'
export {
  OAuthError,
  InvalidRequestError,
  InvalidTokenError,
  InsufficientScopeError,
  AccessDeniedError,
  TooManyRequestsError,
  TemporarilyUnavailableError,
} from '../errors.js'
