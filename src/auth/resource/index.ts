/**
 * `mcp-auth/resource`: protecting MCP servers with bearer tokens. Works with any standards-
 * compliant authorization server; never loads oidc-provider, nor the MCP app layer (an MCP server
 * on every transport behind these checks is `createProtectedMcpApp` in `mcp-auth/http`). The
 * adapters: `requireBearer` and `serveProtectedResourceMetadata` for Koa, `protectMcpHandler` and
 * `protectedResourceMetadataEndpoint` for node:http. Every name here is public.
 */
export { BearerAuth, MissingTokenError } from './bearer-auth.js'
export type { BearerAuthOptions, BearerRequest, BearerErrorResponse, DpopOptions, DpopAuthExtra } from './bearer-auth.js'
export { verifyDpopProof, accessTokenHash } from './dpop-proof.js'
export type { DpopProofCheck, VerifiedDpopProof } from './dpop-proof.js'
export { MemoryDpopReplayCache } from './dpop-replay-cache.js'
export type { DpopReplayCache, MemoryDpopReplayCacheOptions } from './dpop-replay-cache.js'
export { RedisDpopReplayCache } from '../../redis/dpop-replay-cache.js'
export { DpopNonces } from './dpop-nonces.js'
export type { DpopNoncesOptions } from './dpop-nonces.js'
export { createJwtVerifier } from './jwt-verifier.js'
export type { JwtVerifierOptions } from './jwt-verifier.js'
export { createIntrospectionVerifier } from './introspection-verifier.js'
export type { IntrospectionVerifierOptions } from './introspection-verifier.js'
export { introspectionRevocationCheck } from './revocation-check.js'
export type { RevocationCheck } from './revocation-check.js'
export type { TokenVerifier } from './token-verifier.js'
export { protectedResourceMetadata } from './protected-resource-metadata.js'
export type { ProtectedResourceMetadataOptions } from './protected-resource-metadata.js'
export { protectedResourceMetadataEndpoint } from './metadata-endpoint.js'
export { canonicalResourceUri, protectedResourceMetadataUrl } from './resource-uri.js'
export { bearerChallenge, challenge } from './www-authenticate.js'
export { requireBearer } from './koa-bearer.js'
export { serveProtectedResourceMetadata } from './koa-protected-resource-metadata.js'
export { protectMcpHandler } from './protect-mcp-handler.js'
export type { McpRoute, ProtectMcpOptions } from './protect-mcp-handler.js'
export { McpRateLimit } from './mcp-rate-limit.js'
export type { McpRateLimitOptions } from './mcp-rate-limit.js'
export { MemoryTokenBuckets } from './token-bucket.js'
export type { TokenBuckets, BucketShape } from './token-bucket.js'
export { RedisTokenBuckets } from '../../redis/token-bucket.js'
export type { RedisTokenBucketsOptions } from '../../redis/token-bucket.js'
export { ToolCallAudit } from './tool-call-audit.js'
export type { ToolCallAuditOptions, EndedCallFacts } from './tool-call-audit.js'
export { discoverAuthorizationServer } from './discover-authorization-server.js'
export type { AuthorizationServerInfo } from './discover-authorization-server.js'
export { authorizeMcpRequest } from './authorize-mcp-request.js'
export type { McpAuthorization, AuthorizeMcpOptions } from './authorize-mcp-request.js'
export {
  OAuthError,
  InvalidRequestError,
  InvalidTokenError,
  InsufficientScopeError,
  InvalidDpopProofError,
  UseDpopNonceError,
  TemporarilyUnavailableError,
} from '../errors.js'
