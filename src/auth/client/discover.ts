import * as oauth from 'oauth4webapi'
import { defaults } from '../../config/defaults.js'
import { challengeParams } from './parse-www-authenticate.js'
import { authorizationServerMetadataUrls } from '../authorization-server-metadata-urls.js'
import { canonicalResourceUri, protectedResourceMetadataUrl } from '../resource/resource-uri.js'
import { resourceIdentifiesServer } from './resource-identifies-server.js'
import { NetworkError } from './describe-fetch-error.js'

/** RFC 9728 protected resource metadata, as much as the client uses. */
export interface ResourceMetadata {
  resource: string
  authorization_servers?: string[]
  scopes_supported?: string[]
  /** JWS algorithms the resource accepts on DPoP proofs (RFC 9728 §2, RFC 9449 §5.2). */
  dpop_signing_alg_values_supported?: string[]
  /** The resource accepts DPoP-bound access tokens only (RFC 9728 §2). */
  dpop_bound_access_tokens_required?: boolean
}

/** Where to authorize for an MCP server: its resource metadata (if any) and the AS metadata. */
export interface DiscoveredAuthorization {
  /** The canonical MCP server URI sent as `resource` (RFC 8707). */
  resource: string
  resourceMetadata?: ResourceMetadata
  server: oauth.AuthorizationServer
  /** True when no metadata was found and the 2025-03-26 default paths are used. */
  defaultPaths: boolean
  /** Scope from the challenge, else PRM scopes_supported, else undefined (MCP 2025-11-25). */
  scope?: string
}

export class DiscoveryError extends Error {
  override name = 'DiscoveryError'
}

function headers(): Record<string, string> {
  return { accept: 'application/json', 'mcp-protocol-version': defaults.oauthClient.protocolVersion }
}

async function getJson(url: string, fetchImpl: typeof fetch): Promise<{ response: Response; body?: unknown }> {
  const response = await fetchImpl(url, { headers: headers(), signal: AbortSignal.timeout(defaults.oauthClient.requestTimeoutMs) })
  if (!response.ok) {
    await response.body?.cancel()
    return { response }
  }
  return { response, body: await response.json().catch(() => undefined) }
}

/** The canonical form of the MCP server URL: what is sent as `resource`. */
export function canonicalServerUri(url: string | URL): string {
  const parsed = new URL(url)
  parsed.hash = ''
  return canonicalResourceUri(parsed)
}

/**
 * Finds the protected resource metadata of an MCP server (MCP 2025-11-25 authorization
 * §"Protected Resource Metadata Discovery"): the challenge's `resource_metadata`, else the
 * path-aware well-known address, else the root one. Undefined when there is none (a 2025-03-26
 * server). The document's `resource` must name this server ({@link resourceIdentifiesServer}).
 */
export async function discoverResourceMetadata(serverUrl: string, challenge: string | null | undefined, fetchImpl: typeof fetch = fetch): Promise<ResourceMetadata | undefined> {
  const url = new URL(serverUrl)
  const fromChallenge = challengeParams(challenge)?.['resource_metadata']
  const candidates = [
    ...(fromChallenge !== undefined ? [fromChallenge] : []),
    protectedResourceMetadataUrl(canonicalServerUri(url)),
    `${url.origin}/.well-known/oauth-protected-resource`,
  ]
  for (const candidate of [...new Set(candidates)]) {
    const { body } = await getJson(candidate, fetchImpl)
    if (body === undefined || typeof body !== 'object' || body === null) continue
    const metadata = body as ResourceMetadata
    if (typeof metadata.resource !== 'string') continue
    if (!resourceIdentifiesServer(metadata.resource, url)) {
      throw new DiscoveryError(`${candidate} describes the resource ${JSON.stringify(metadata.resource)}, which is not ${serverUrl}; refusing to log in (RFC 9728 §3.3)`)
    }
    return metadata
  }
  return undefined
}

/**
 * Authorization server metadata in the MCP 2025-11-25 order: RFC 8414 path-inserted, OIDC
 * path-inserted, OIDC appended (for an issuer without a path: RFC 8414, then OIDC). The
 * document's `issuer` must be identical to the issuer identifier the address was built from, or
 * the document is not used (RFC 8414 §3.3, MCP 2026-07-28 authorization-server-discovery).
 */
export async function discoverAuthorizationServerMetadata(issuer: string, fetchImpl: typeof fetch = fetch): Promise<oauth.AuthorizationServer | undefined> {
  for (const candidate of authorizationServerMetadataUrls(issuer)) {
    const response = await fetchImpl(candidate, { headers: headers(), signal: AbortSignal.timeout(defaults.oauthClient.requestTimeoutMs) })
    if (response.status === 404 || response.status === 405) {
      await response.body?.cancel()
      continue
    }
    let metadata: oauth.AuthorizationServer
    try {
      // Validates status and JSON; its issuer check compares normalised URLs, ours below does not.
      metadata = await oauth.processDiscoveryResponse(new URL(issuer), response)
    } catch (error) {
      if (error instanceof oauth.OperationProcessingError && error.code === oauth.JSON_ATTRIBUTE_COMPARISON) {
        throw issuerMismatch(candidate, issuer, (error.cause as { body?: { issuer?: unknown } } | undefined)?.body?.issuer, error)
      }
      throw error
    }
    if (metadata.issuer !== issuer) throw issuerMismatch(candidate, issuer, metadata.issuer)
    return metadata
  }
  return undefined
}

/** Simple string comparison: `https://as.example/` is not the issuer `https://as.example`. */
function issuerMismatch(url: string, expected: string, found: unknown, cause?: unknown): DiscoveryError {
  return new DiscoveryError(
    `the authorization server metadata at ${url} names the issuer ${JSON.stringify(found)}, not ${JSON.stringify(expected)}; it is not used (RFC 8414 §3.3)`,
    cause === undefined ? undefined : { cause },
  )
}

/**
 * The authorization server and resource an MCP server's metadata names: its first
 * `authorization_servers` entry and its `resource`; for a 2025-03-26 server without metadata, its
 * origin and its own URL. Undefined when the metadata names no authorization server.
 */
export function namedAuthorization(serverUrl: string, resourceMetadata: ResourceMetadata | undefined): { issuer: string; resource: string } | undefined {
  if (resourceMetadata === undefined) return { issuer: new URL(serverUrl).origin, resource: canonicalServerUri(serverUrl) }
  const issuer = resourceMetadata.authorization_servers?.[0]
  return issuer === undefined ? undefined : { issuer, resource: resourceMetadata.resource }
}

/**
 * Everything discovery finds for an MCP server that answered 401: PRM → authorization server →
 * its metadata; for a 2025-03-26 server without PRM, the authorization base URL (the server's
 * origin) and, without metadata there either, the default `/authorize`, `/token`, `/register`.
 */
export async function discoverAuthorization(serverUrl: string, challenge: string | null | undefined, fetchImpl: typeof fetch = fetch): Promise<DiscoveredAuthorization> {
  const resourceMetadata = await discoverResourceMetadata(serverUrl, challenge, fetchImpl)
  // RFC 8707 / MCP: the identifier exactly as the metadata publishes it (a pathless
  // "http://host" stays pathless), else the canonical form of the server URL
  const named = namedAuthorization(serverUrl, resourceMetadata)
  if (named === undefined) throw new DiscoveryError(`the protected resource metadata of ${serverUrl} names no authorization server`)
  const { issuer, resource } = named
  const challengeScope = challengeParams(challenge)?.['scope']
  const scope = challengeScope ?? resourceMetadata?.scopes_supported?.join(' ')
  let server: oauth.AuthorizationServer | undefined
  try {
    server = resourceMetadata !== undefined ? await discoverAuthorizationServerMetadata(issuer, fetchImpl) : await legacyAuthorizationServerMetadata(issuer, fetchImpl)
  } catch (error) {
    if (error instanceof NetworkError) throw new DiscoveryError(`the authorization server ${issuer} is unreachable: ${error.message}`, { cause: error })
    throw error
  }
  if (server !== undefined) return { resource, ...(resourceMetadata ? { resourceMetadata } : {}), server, defaultPaths: false, ...(scope ? { scope } : {}) }
  if (resourceMetadata !== undefined) throw new DiscoveryError(`no authorization server metadata for ${issuer}`)
  const base = new URL(serverUrl).origin
  return {
    resource,
    server: {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      code_challenge_methods_supported: ['S256'],
    },
    defaultPaths: true,
    ...(scope ? { scope } : {}),
  }
}

/**
 * 2025-03-26 servers without PRM: the metadata at the authorization base URL (the server's
 * origin), which is therefore the issuer identifier the document must name (RFC 8414 §3.3).
 */
async function legacyAuthorizationServerMetadata(base: string, fetchImpl: typeof fetch): Promise<oauth.AuthorizationServer | undefined> {
  const url = `${base}/.well-known/oauth-authorization-server`
  const { body } = await getJson(url, fetchImpl)
  if (body === undefined || typeof body !== 'object' || body === null) return undefined
  const metadata = body as oauth.AuthorizationServer
  if (metadata.issuer !== base) throw issuerMismatch(url, base, metadata.issuer)
  return metadata
}
