/**
 * Where an issuer's metadata may be, in the order MCP 2025-11-25 lists: RFC 8414 path-inserted,
 * OpenID Connect path-inserted, OpenID Connect appended (for an issuer without a path: RFC 8414,
 * then OpenID Connect). Shared by the login helper and the resource server's discovery.
 */
export function authorizationServerMetadataUrls(issuer: string | URL): string[] {
  const url = new URL(issuer)
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    ...(path === '' ? [] : [`${url.origin}${path}/.well-known/openid-configuration`]),
  ]
}
