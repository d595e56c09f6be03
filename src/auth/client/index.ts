/**
 * `mcp-auth/login`: the client side of MCP authorization. Every name here is public.
 */
export { McpOAuth } from './mcp-oauth.js'
export { McpOAuthError } from './mcp-oauth-error.js'
export type { McpOAuthOptions, Handoff } from './mcp-oauth.js'
export { FileTokenStore, defaultTokenStorePath } from './token-store.js'
export type { TokenStore, StoredClient, StoredTokens } from './token-store.js'
export { ClientCredentialsAuth } from './client-credentials-auth.js'
export type { ClientCredentialsOptions } from './client-credentials-auth.js'
export { crossAppAccessToken } from './cross-app-access.js'
export type { CrossAppAccessOptions } from './cross-app-access.js'
export { discoverAuthorization, discoverResourceMetadata, discoverAuthorizationServerMetadata, canonicalServerUri, DiscoveryError } from './discover.js'
export type { DiscoveredAuthorization, ResourceMetadata } from './discover.js'
export { parseWwwAuthenticate, bearerParams } from './parse-www-authenticate.js'
export type { Challenge } from './parse-www-authenticate.js'
export { startLoopbackCallback } from './loopback-callback.js'
export type { LoopbackCallback } from './loopback-callback.js'
export { clientSecretBasic } from './client-secret-basic.js'
