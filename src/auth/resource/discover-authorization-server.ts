import { defaults } from '../../config/defaults.js'
import { authorizationServerMetadataUrls } from '../authorization-server-metadata-urls.js'

/** What a resource server needs from its authorization server's metadata. */
export interface AuthorizationServerInfo {
  issuer: string
  jwks_uri?: string
  introspection_endpoint?: string
}

/**
 * Reads an authorization server's metadata the way MCP 2025-11-25 lists it: RFC 8414
 * (path-inserted for an issuer with a path), then OpenID Connect discovery (path-inserted, then
 * appended). The document's `issuer` must equal the one asked for (RFC 8414 §3.3). `signal`
 * bounds the whole discovery, every candidate together.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  fetchImpl: (url: string, init: RequestInit) => Promise<Response> = fetch,
  options: { signal?: AbortSignal } = {},
): Promise<AuthorizationServerInfo> {
  const candidates = authorizationServerMetadataUrls(issuer)
  const problems: string[] = []
  for (const candidate of candidates) {
    try {
      const deadline = AbortSignal.timeout(defaults.resourceServer.fetchTimeoutMs)
      const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline])
      const response = await fetchImpl(candidate, { headers: { accept: 'application/json' }, signal })
      if (!response.ok) {
        await response.body?.cancel()
        problems.push(`${candidate}: ${response.status}`)
        continue
      }
      const metadata = (await response.json()) as AuthorizationServerInfo
      if (metadata.issuer !== issuer.replace(/\/$/, '') && metadata.issuer !== issuer) {
        throw new Error(`${candidate} names the issuer ${String(metadata.issuer)}, not ${issuer}`)
      }
      return metadata
    } catch (error) {
      if (error instanceof Error && error.message.includes('names the issuer')) throw error
      problems.push(`${candidate}: ${(error as Error).message}`)
    }
  }
  throw new Error(`no authorization server metadata for ${issuer} (${problems.join('; ')})`)
}
