import type { Context, Middleware, Next } from 'koa'
import type Provider from 'oidc-provider'
import type { OidcAdapter } from '../../../storage/types.js'
import type { UpstreamSessions } from '../../delegation/upstream-login.js'
import { destroyGrant } from '../admin/grant-admin.js'
import { readFormOnce } from './replayable-body.js'
import { OAuthError, PayloadTooLargeError } from '../../errors.js'
import { scoped } from './scoped-middleware.js'

/**
 * With delegated login, our grants stand on upstream sessions. Before a refresh token is
 * redeemed the upstream session is refreshed too; before a token is introspected, an expired
 * upstream session is refreshed. An upstream refusal ends our grant (everything issued from it);
 * an unreachable upstream is 503 temporarily_unavailable and changes nothing.
 */
export function upstreamGuard(options: {
  provider: Provider
  sessions: UpstreamSessions
  adapter: (name: string) => OidcAdapter
  tokenPath: string
  introspectionPath: string
  maxBodyBytes: number
}): Middleware {
  const { provider, sessions } = options

  async function endGrant(grantId: string): Promise<void> {
    await destroyGrant(options.adapter, grantId)
    await sessions.revoke(grantId)
  }

  async function grantOf(token: string, models: Array<'RefreshToken' | 'AccessToken'>): Promise<string | undefined> {
    for (const model of models) {
      const found = await (provider[model] as unknown as { find(value: string): Promise<{ grantId?: string } | undefined> }).find(token).catch(() => undefined)
      if (found?.grantId !== undefined) return found.grantId
    }
    return undefined
  }

  function unavailable(ctx: Context): void {
    ctx.status = 503
    ctx.set('retry-after', '30')
    ctx.set('cache-control', 'no-store')
    ctx.body = { error: 'temporarily_unavailable', error_description: 'the upstream identity provider could not be reached; try again later' }
  }

  const applies = (path: string, method: string, ctx: Context): boolean =>
    method === 'POST' && (path === options.tokenPath || path === options.introspectionPath) && Boolean(ctx.is('application/x-www-form-urlencoded'))
  return scoped(applies, async function upstreamGuard(ctx: Context, next: Next): Promise<void> {
    const form = await readFormOnce(ctx, options.maxBodyBytes)
    if (form === undefined) throw new PayloadTooLargeError()
    if (ctx.path === options.tokenPath) {
      const refreshToken = form.get('grant_type') === 'refresh_token' ? form.get('refresh_token') : null
      const grantId = refreshToken === null ? undefined : await grantOf(refreshToken, ['RefreshToken'])
      if (grantId !== undefined) {
        const status = await sessions.refresh(grantId)
        if (status === 'unavailable') return unavailable(ctx)
        if (status === 'refused') {
          await endGrant(grantId)
          throw new OAuthError('invalid_grant', 400, 'the identity provider ended the session (signed out or revoked there); sign in again')
        }
      }
      return next()
    }
    const token = form.get('token')
    const grantId = token === null ? undefined : await grantOf(token, ['AccessToken', 'RefreshToken'])
    if (grantId !== undefined && (await sessions.current(grantId)) === 'refused') {
      const status = await sessions.refresh(grantId)
      if (status === 'unavailable') return unavailable(ctx)
      if (status === 'refused') await endGrant(grantId)
    }
    return next()
  })
}
