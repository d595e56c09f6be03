import type { Context, Middleware, Next } from 'koa'
import { isLoopbackHostname } from '../../../config/loopback-hosts.js'
import { OAuthError } from '../../errors.js'

/**
 * Every absolute URL the authorization server emits (metadata, redirects, `registration_client_uri`)
 * comes from the configured issuer, never from the request: a request whose Host (or, behind a
 * trusted proxy, X-Forwarded-Host) is not the issuer's host is refused with 403 before anything
 * reads it, and an accepted one is presented to oidc-provider with exactly the issuer's host and
 * scheme. A loopback issuer also answers its loopback aliases on the same port (`localhost`,
 * `127.0.0.1`, `[::1]`), as a loopback-bound server is reached by any of them.
 */
export function issuerHost(options: { issuer: URL; trustProxy: boolean }): Middleware {
  const { issuer, trustProxy } = options
  const protocol = issuer.protocol.slice(0, -1)
  const port = issuer.port
  const loopback = isLoopbackHostname(issuer.hostname)
  function accepted(host: string): boolean {
    if (host === issuer.host) return true
    if (!loopback) return false
    const parsed = URL.parse(`${protocol}://${host}`)
    return parsed !== null && parsed.port === port && isLoopbackHostname(parsed.hostname) && parsed.host === host.toLowerCase()
  }
  return function issuerHost(ctx: Context, next: Next): Promise<void> {
    const forwarded = trustProxy ? ctx.get('x-forwarded-host').split(',')[0]!.trim() : ''
    const host = forwarded || ctx.req.headers.host || ''
    // the issuer's own host, as sent (the usual case), needs neither lowercasing nor parsing
    if (host !== issuer.host) {
      if (!accepted(host.toLowerCase())) throw new OAuthError('invalid_request', 403, 'this server does not answer for that host')
      ctx.req.headers.host = issuer.host
    }
    if (trustProxy) {
      ctx.req.headers['x-forwarded-host'] = issuer.host
      ctx.req.headers['x-forwarded-proto'] = protocol
    } else if (ctx.protocol !== protocol) {
      // An https issuer served by plain http behind a proxy that is not trusted: still name the issuer's scheme.
      Object.defineProperty(ctx.request, 'protocol', { value: protocol, configurable: true })
    }
    return next()
  }
}
