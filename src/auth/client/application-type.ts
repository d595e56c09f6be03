import { isLoopbackUrl } from '../../config/loopback-hosts.js'

/**
 * The OpenID Connect `application_type` a client registers with, from its redirect URIs (MCP
 * 2026-07-28 client-registration, SEP-837): `web` when every one is an http(s) address on a host
 * other than loopback, `native` otherwise (loopback redirects like this helper's own, or a custom
 * scheme). Registering a loopback redirect as `web`, the OIDC default, gets it refused there.
 *
 * @example applicationType(['http://127.0.0.1:49152/callback']) // 'native'
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration
 */
export function applicationType(redirectUris: readonly string[]): 'native' | 'web' {
  const remoteWeb = (uri: string): boolean => {
    const url = new URL(uri)
    return (url.protocol === 'https:' || url.protocol === 'http:') && !isLoopbackUrl(url)
  }
  return redirectUris.length > 0 && redirectUris.every(remoteWeb) ? 'web' : 'native'
}
