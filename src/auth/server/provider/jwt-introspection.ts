import type { Context, Middleware, Next } from 'koa'
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose'
import type { GrantRevocations } from '../stores/grant-revocations.js'
import { scoped } from '../middleware/scoped-middleware.js'
import { oidcOf } from './oidc-context.js'

/**
 * RFC 7662 introspection of our own JWT access tokens. oidc-provider does not store them, so it
 * cannot say whether one is active; after it has authenticated the caller and found nothing, this
 * verifies the JWT with our keys (issuer, `typ`, expiry) and answers active unless its grant was
 * revoked. A public client may introspect only its own tokens, as oidc-provider's default policy says.
 */
export function jwtIntrospection(options: {
  path: string
  issuer: string
  jwks: JSONWebKeySet
  revocations: GrantRevocations
  clockToleranceSeconds: number
  /** A blocked client's tokens are inactive whatever else is true of them (its client_credentials tokens have no grant to revoke). */
  isBlocked?: (clientId: string) => boolean
}): Middleware {
  const blocked = (clientId: unknown): boolean => typeof clientId === 'string' && options.isBlocked?.(clientId) === true
  const keys = createLocalJWKSet(options.jwks)
  return scoped(
    (path, method) => method === 'POST' && path === options.path,
    async function jwtIntrospection(ctx: Context, next: Next): Promise<void> {
      await next()
      const oidc = oidcOf(ctx)
      const caller = oidc?.client
      const token = oidc?.params?.['token']
      const body = ctx.body as Record<string, unknown> | undefined
      // oidc-provider's own answer for a token it stores (an opaque one) knows nothing of blocks
      if (ctx.status === 200 && body?.['active'] === true && blocked(body['client_id'])) {
        ctx.body = { active: false }
        return
      }
      if (caller === undefined || typeof token !== 'string' || token.split('.').length !== 3) return
      const unknown = (ctx.status === 200 && body?.['active'] === false) || body?.['error'] === 'unsupported_token_type'
      if (!unknown) return
      let payload
      try {
        ;({ payload } = await jwtVerify(token, keys, { issuer: options.issuer, typ: 'at+jwt', clockTolerance: options.clockToleranceSeconds, requiredClaims: ['exp'] }))
      } catch {
        return
      }
      ctx.status = 200
      ctx.body = { active: false }
      if (options.revocations.isRevoked(payload['gid']) || blocked(payload['client_id'])) return
      if (caller.clientAuthMethod === 'none' && payload['client_id'] !== caller.clientId) return
      const { gid: _gid, ...claims } = payload
      // a DPoP-bound token says so, and its `cnf` (claims) names the key (RFC 9449 §6.2)
      const bound = typeof (payload['cnf'] as { jkt?: unknown } | undefined)?.jkt === 'string'
      ctx.body = { ...claims, active: true, token_type: bound ? 'DPoP' : 'Bearer' }
    },
  )
}
