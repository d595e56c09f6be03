/**
 * The canonical URI of an MCP server (MCP 2025-06-18 authorization §"Canonical Server URI",
 * RFC 8707 §2): absolute, lowercase scheme and host, no fragment, the default port dropped, and no
 * trailing slash unless the path is only `/`. Used as the token audience and `resource`.
 *
 * Audience matching is exact against this form: a token for `https://mcp.example.com/mcp/` is
 * accepted by `https://mcp.example.com/mcp` (both canonicalise to the latter), but not one for
 * `https://mcp.example.com` or `https://mcp.example.com/mcp/other`.
 */
export function canonicalResourceUri(uri: string | URL): string {
  const url = new URL(uri)
  if (url.hash !== '' || String(uri).includes('#')) throw new TypeError(`a resource URI has no fragment: ${String(uri)}`)
  url.hash = ''
  let text = url.href
  if (url.pathname !== '/' && url.search === '' && text.endsWith('/')) text = text.slice(0, -1)
  if (url.pathname === '/' && url.search === '') text = text.slice(0, -1)
  return text
}

/** The RFC 9728 §3.1 metadata address for a resource: `/.well-known/oauth-protected-resource` + its path. */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(canonicalResourceUri(resource))
  const path = url.pathname === '/' ? '' : url.pathname
  return `${url.origin}/.well-known/oauth-protected-resource${path}`
}
