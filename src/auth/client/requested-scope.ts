import type * as oauth from 'oauth4webapi'

/**
 * The `scope` of an authorization request: the one selected for the resource (challenge, else
 * protected resource metadata, else none; MCP 2025-11-25 scope selection) with `offline_access`
 * added when the authorization server lists it in `scopes_supported`, so that it may issue a
 * refresh token, and taken out when the server lists scopes without it (MCP 2026-07-28 §Refresh
 * Tokens, SEP-2207). With no selected scope the parameter stays omitted: `offline_access` alone
 * would replace the server's default scope rather than add to it.
 *
 * @example requestedScope('mcp', { scopes_supported: ['mcp', 'offline_access'] }) // 'mcp offline_access'
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#refresh-tokens
 */
export function requestedScope(selected: string | undefined, server: Pick<oauth.AuthorizationServer, 'scopes_supported'>): string | undefined {
  const scopes = new Set(selected?.split(' ').filter(Boolean))
  if (scopes.size === 0) return undefined
  const supported = server.scopes_supported
  if (supported?.includes('offline_access') === true) scopes.add('offline_access')
  else if (supported !== undefined) scopes.delete('offline_access')
  return scopes.size === 0 ? undefined : [...scopes].join(' ')
}
