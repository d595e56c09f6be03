import type { DpopMode } from './dpop-mode.js'
import type { TokenStore } from './token-store.js'

/**
 * Where Bearer tokens are kept beside DPoP-bound ones of the same store key (issue 28): the key
 * with `bearer` added to its fragment. A resource indicator has no fragment (RFC 8707 §2), so
 * this never meets another resource's tokens.
 *
 * @example bearerTokenKey('https://mcp.example.com/mcp') // 'https://mcp.example.com/mcp#bearer'
 */
export function bearerTokenKey(key: string): string {
  const url = new URL(key)
  url.hash = url.hash === '' ? 'bearer' : `${url.hash.slice(1)}&bearer`
  return url.href
}

/**
 * The store key an instance keeps its tokens under. `never` (Bearer only, as `mcp-auth token`
 * wants for scripts) shares the entry while it holds a Bearer token, and moves beside it to
 * {@link bearerTokenKey} when it holds a DPoP-bound one: each kind keeps its own, and one Bearer
 * login serves both when the resource takes Bearer anyway.
 */
export async function tokenKeyFor(store: TokenStore | undefined, mode: DpopMode, issuer: string, key: string): Promise<string> {
  if (mode !== 'never' || store === undefined) return key
  const held = await store.getTokens(issuer, key)
  return held?.token_type?.toLowerCase() === 'dpop' ? bearerTokenKey(key) : key
}

/** Whether a store key is `resource`'s own or one kept beside it (a fragment: Bearer, machine tokens). */
export function isTokenKeyOf(key: string, resource: string): boolean {
  if (!URL.canParse(key) || !URL.canParse(resource)) return false
  const url = new URL(key)
  url.hash = ''
  return url.href === new URL(resource).href
}
