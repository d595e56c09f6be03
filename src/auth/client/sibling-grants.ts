import type { StoredTokens } from './token-store.js'

/**
 * The stored user logins whose refresh token may be tried for `resource` (issue 28, one login per
 * server): same authorization server, another resource on the same origin (never another origin:
 * that is another server), a refresh token, the same client when the entry names one, and the
 * same binding (a DPoP-bound grant gives bound tokens, a Bearer one Bearer tokens). Keys with a
 * fragment hold Bearer-only and machine tokens: not a user login's grant of their own.
 *
 * @example siblingGrants(await store.list(), { issuer, resource: 'https://mcp.example.com/sse', clientId, bound: false })
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2.2
 */
export function siblingGrants(
  entries: ReadonlyArray<{ issuer: string; resource: string; tokens: StoredTokens }>,
  wanted: { issuer: string; resource: string; clientId: string; bound: boolean },
): Array<{ issuer: string; resource: string; tokens: StoredTokens }> {
  if (!URL.canParse(wanted.resource)) return []
  const origin = new URL(wanted.resource).origin
  return entries.filter(({ issuer, resource, tokens }) => {
    if (issuer !== wanted.issuer || resource === wanted.resource || !URL.canParse(resource)) return false
    const url = new URL(resource)
    return (
      url.origin === origin &&
      url.hash === '' &&
      tokens.refresh_token !== undefined &&
      (tokens.client_id === undefined || tokens.client_id === wanted.clientId) &&
      (tokens.token_type?.toLowerCase() === 'dpop') === wanted.bound
    )
  })
}
