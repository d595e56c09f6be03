/**
 * Redirect URI rules (OAuth 2.1 §2.3.1, RFC 8252 §7.3, §8.3): a redirect URI is https, or http on a
 * loopback host; and a loopback redirect URI matches at authorization time on any port, whatever
 * the client's `application_type` (oidc-provider applies the any-port rule to native clients
 * only, while DCR and client ID metadata documents default to `web`).
 */
import { isLoopbackHostname } from '../../../config/loopback-hosts.js'

/** Why `uri` is not an acceptable redirect URI, or undefined when it is. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'redirect URIs must be strings'
  const parsed = URL.parse(uri)
  if (parsed === null) return `${uri} is not an absolute URL`
  if (parsed.hash !== '' || uri.includes('#')) return `${uri} must not contain a fragment`
  if (parsed.username !== '' || parsed.password !== '') return `${uri} must not contain credentials`
  if (parsed.protocol === 'https:') return undefined
  if (parsed.protocol === 'http:' && isLoopbackHostname(parsed.hostname)) return undefined
  return `${uri} must use https, or http on a loopback host (localhost, 127.0.0.1, [::1])`
}

/** True when `requested` equals `registered` except for the port, both http on the same loopback host. */
export function loopbackRedirectMatches(requested: string, registered: string): boolean {
  const a = URL.parse(requested)
  const b = URL.parse(registered)
  if (a === null || b === null) return false
  if (a.protocol !== 'http:' || b.protocol !== 'http:' || !isLoopbackHostname(a.hostname)) return false
  if (a.username !== '' || a.password !== '' || a.hash !== '' || requested.includes('#')) return false
  return a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search
}

interface ClientLike {
  redirectUris: string[]
  redirectUriAllowed(value: string): boolean
}

/**
 * Widens `Client#redirectUriAllowed` of one oidc-provider instance so loopback redirect URIs
 * match on any port for every client. Exact matching stays the rule for everything else.
 */
export function allowLoopbackRedirectsOnAnyPort(ClientClass: { prototype: ClientLike }): void {
  const exact = ClientClass.prototype.redirectUriAllowed
  ClientClass.prototype.redirectUriAllowed = function redirectUriAllowed(this: ClientLike, value: string): boolean {
    if (exact.call(this, value)) return true
    return this.redirectUris.some((registered) => loopbackRedirectMatches(value, registered))
  }
}
