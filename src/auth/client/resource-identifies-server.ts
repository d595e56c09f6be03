/**
 * Whether a protected resource metadata `resource` names the MCP server at `serverUrl`, so that
 * the metadata may be used for it (RFC 9728 §3.3): same origin (scheme, host and port, compared
 * as URLs so case and a default port do not matter) and a path that is the server's own or one
 * of its parents at a segment boundary. For `http://host/mcp`: `http://host/mcp` and `http://host`
 * do; `http://host/other`, `http://host/mc` and anything on another origin do not.
 *
 * RFC 9728 §3.3 asks for identity with the URL the metadata address was built from; MCP lets a
 * server publish its metadata at the root, which makes the origin its identifier, and the parent
 * path rule (draft-ietf-oauth-rfc9728bis, the MCP TypeScript SDK) accepts both without letting a
 * server claim a resource it is not part of. The value is still sent verbatim as `resource`.
 */
export function resourceIdentifiesServer(resource: string, serverUrl: string | URL): boolean {
  if (!URL.canParse(resource) || resource.includes('#')) return false
  const claimed = new URL(resource)
  const server = new URL(serverUrl)
  if (claimed.origin === 'null' || claimed.origin !== server.origin) return false
  if (claimed.search !== '') return claimed.search === server.search && claimed.pathname === server.pathname
  const parent = claimed.pathname.replace(/\/+$/, '')
  return parent === '' || server.pathname === parent || server.pathname.startsWith(`${parent}/`)
}
