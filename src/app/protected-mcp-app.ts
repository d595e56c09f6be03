import { Observer } from '../observe/observer.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { BearerAuth, type DpopOptions } from '../auth/resource/bearer-auth.js'
import { createJwtVerifier } from '../auth/resource/jwt-verifier.js'
import { protectedResourceMetadataEndpoint } from '../auth/resource/metadata-endpoint.js'
import { canonicalResourceUri, protectedResourceMetadataUrl } from '../auth/resource/resource-uri.js'
import type { TokenVerifier } from '../auth/resource/token-verifier.js'
import type { RevocationCheck } from '../auth/resource/revocation-check.js'
import { defaults } from '../config/defaults.js'
import type { SessionHost } from '../session-host/session-host.js'
import { createMcpHttpApp, type McpHttpApp, type McpHttpAppOptions } from './mcp-http-app.js'
import { protectMcpHandler } from '../auth/resource/protect-mcp-handler.js'
import { McpRateLimit, type McpRateLimitOptions } from '../auth/resource/mcp-rate-limit.js'
import type { TokenBuckets } from '../auth/resource/token-bucket.js'
import { type EndedCallFacts, ToolCallAudit, type ToolCallAuditOptions } from '../auth/resource/tool-call-audit.js'

export interface ProtectedMcpAppOptions extends Omit<McpHttpAppOptions, 'wrapRoute' | 'before'> {
  /** The public origin of this server (e.g. http://localhost:4000); the resource is `${origin}${prefix}${path}`. */
  origin: string
  /** Issuer identifier of the authorization server whose tokens are accepted. */
  issuer: string
  /** Its JWKS URL (default `${issuer}/jwks`, as our authorization server publishes it). */
  jwksUri?: string
  /** Another verifier (e.g. introspection for opaque tokens) instead of JWT verification. */
  verifier?: TokenVerifier
  /** Refuse JWTs whose grant was revoked before `exp` (see `createJwtVerifier`); off by default. */
  checkRevocation?: RevocationCheck
  scopesSupported?: readonly string[]
  requiredScopes?: readonly string[]
  toolScopes?: Readonly<Record<string, readonly string[]>>
  resourceName?: string
  /** DPoP (RFC 9449): accepted by default for clients that use it; options (replay cache, nonces…) or false. */
  dpop?: DpopOptions | false
  /** Accept DPoP-bound tokens only (a Bearer token is refused); shorthand for `dpop: { required: true }`. */
  requireDpop?: boolean
  /** Where the app reports (its log, audit events, metrics, spans); default: nothing reported. */
  observer?: Observer
  /**
   * Fair use per principal (the token's subject and client) on this resource: a token bucket with
   * a rate and a burst, tools with a cost; over it, 429 with Retry-After. On by default with the
   * values of `defaults.observe.limits`; false turns it off.
   */
  rateLimit?: McpRateLimitOptions | false
  /** Where the buckets live: this process by default; `RedisTokenBuckets` shares them between nodes. */
  rateLimitBuckets?: TokenBuckets
  /** The audit of MCP calls: refusals always; allowed calls (and a tool's arguments) when turned on here. */
  audit?: ToolCallAuditOptions
}

const ROOT_METADATA_PATH = '/.well-known/oauth-protected-resource'

/** What {@link createProtectedMcpApp} returns beside the app. */
export interface ProtectedMcpApp extends McpHttpApp {
  /** The main endpoint's resource identifier (`${origin}${prefix}${path}`): what the root metadata describes (none under a prefix). */
  resource: string
  /**
   * Every protected endpoint's identifier, the main one first (`/mcp`, `/sse`, `/rest`): each has
   * its own metadata and challenge, and a token for any of them is accepted on all.
   */
  resources: string[]
  warm(): Promise<void>
}

/**
 * An MCP server on every HTTP transport with bearer tokens required, each endpoint a resource
 * identifier of its own (RFC 9728 §3.3: a client accepts metadata whose `resource` is the URL it
 * asked): metadata at `/.well-known/oauth-protected-resource{path}` for `path` (also at the root),
 * `/sse` (whose `/messages` challenges name it too) and `/rest`; every MCP route behind the
 * bearer check, which accepts a token for any of them; the verified identity in each handler's
 * `authInfo`. Give the authorization server the other identifiers as the resource's `aliases`.
 */
export function createProtectedMcpApp(server: SessionHost, options: ProtectedMcpAppOptions): ProtectedMcpApp {
  const path = options.path ?? defaults.streamableHttp.path
  // several servers on one origin: each its own identifiers under its prefix (`${origin}/<name>/mcp`)
  const base = `${options.origin}${options.prefix ?? ''}`
  const resource = canonicalResourceUri(`${base}${path}`)
  // the route of each identifier (routes as the app names them, without the prefix); `/messages` belongs to the `/sse` transport
  const endpointOf = new Map([
    [path, resource],
    [defaults.legacySse.ssePath, canonicalResourceUri(`${base}${defaults.legacySse.ssePath}`)],
    [defaults.legacySse.messagesPath, canonicalResourceUri(`${base}${defaults.legacySse.ssePath}`)],
    [defaults.statelessJson.path, canonicalResourceUri(`${base}${defaults.statelessJson.path}`)],
  ])
  const resources = [...new Set(endpointOf.values())]
  const jwt =
    options.verifier === undefined
      ? createJwtVerifier({
          issuer: options.issuer,
          audience: resources,
          jwksUri: options.jwksUri ?? `${options.issuer}/jwks`,
          ...(options.checkRevocation !== undefined ? { checkRevocation: options.checkRevocation } : {}),
        })
      : undefined
  const verifier = options.verifier ?? jwt!
  const auth = new BearerAuth({
    verifier,
    resourceMetadataUrl: protectedResourceMetadataUrl(resource),
    ...(options.requiredScopes !== undefined ? { requiredScopes: options.requiredScopes } : {}),
    ...(options.toolScopes !== undefined ? { toolScopes: options.toolScopes } : {}),
    dpop:
      options.dpop === false && options.requireDpop !== true
        ? false
        : { origin: options.origin, ...(options.dpop || {}), ...(options.requireDpop === true ? { required: true } : {}) },
  })
  // one check per identifier, each challenge naming its endpoint's metadata
  const auths = new Map(resources.map((identifier) => [identifier, identifier === resource ? auth : auth.withResourceMetadataUrl(protectedResourceMetadataUrl(identifier))]))
  const metadata = protectedResourceMetadataEndpoint(
    resources.map((identifier) => ({
      ...auth.dpopMetadata,
      resource: identifier,
      authorizationServers: [options.issuer],
      ...(options.scopesSupported !== undefined ? { scopesSupported: options.scopesSupported } : {}),
      ...(options.resourceName !== undefined ? { resourceName: options.resourceName } : {}),
    })),
  )
  const maxBodyBytes = options.maxBodyBytes ?? defaults.streamableHttp.maxBodyBytes
  const {
    origin: _origin,
    issuer: _issuer,
    jwksUri: _jwksUri,
    verifier: _verifier,
    checkRevocation: _c,
    scopesSupported: _s,
    requiredScopes: _r,
    toolScopes: _t,
    resourceName: _n,
    dpop: _d,
    requireDpop: _rd,
    rateLimit: _l,
    rateLimitBuckets: _b,
    audit: _a,
    ...httpOptions
  } = options
  const limit = options.rateLimit === false ? undefined : new McpRateLimit(options.rateLimit ?? {}, options.rateLimitBuckets)
  const trustProxy = options.trustProxy === true
  const audit = new ToolCallAudit(options.observer ?? Observer.quiet(), resource, options.audit ?? {}, trustProxy)
  // allowed calls are known where they are answered: the MCP server reports each one it ends
  const reporter = server as SessionHost & { onCallEnded?: (listener: (call: EndedCallFacts) => void) => void }
  if (audit.allowedCalls && typeof reporter.onCallEnded === 'function') reporter.onCallEnded((call) => audit.callEnded(call))
  const app = createMcpHttpApp(server, {
    ...httpOptions,
    wrapRoute: (route, routePath) => protectMcpHandler(auths.get(endpointOf.get(routePath) ?? resource) ?? auth, route, { maxBodyBytes, limit, audit, trustProxy }),
    // under a prefix the root document is not this server's alone: it serves its path-inserted ones only
    before: (req: IncomingMessage, res: ServerResponse, requestPath: string) =>
      (options.prefix === undefined || options.prefix === '' || requestPath !== ROOT_METADATA_PATH) && metadata(req, res, requestPath),
  })
  // assign, not spread: a spread would read `app` and load Koa for a server that never needs it
  return Object.assign(app, { resource, resources, warm: async () => jwt?.warm() })
}
