import { decodeJwt } from 'jose'
import type { Context, Middleware, Next } from 'koa'
import { OAuthError, PayloadTooLargeError } from '../../errors.js'
import { readFormOnce } from '../middleware/replayable-body.js'
import { scoped } from '../middleware/scoped-middleware.js'

/**
 * Refuses a client assertion (RFC 7523 §3) issued in the future: oidc-provider checks `iat` only
 * when the assertion has no `exp`, so an assertion minted ahead of time would be accepted once
 * its time came — or at once. The form is read once and replayed (see readFormOnce).
 */
export function refuseFutureAssertions(options: { paths: readonly string[]; clockToleranceSeconds: number; maxBodyBytes: number; now?: () => number }): Middleware {
  const paths = new Set(options.paths)
  const now = options.now ?? Date.now
  // a client that authenticates with its Authorization header sends no assertion
  const applies = (path: string, method: string, ctx: Context): boolean =>
    method === 'POST' && paths.has(path) && (ctx.req.headers.authorization ?? '') === '' && Boolean(ctx.is('application/x-www-form-urlencoded'))
  return scoped(applies, async function refuseFutureAssertions(ctx: Context, next: Next): Promise<void> {
    const form = await readFormOnce(ctx, options.maxBodyBytes)
    if (form === undefined) throw new PayloadTooLargeError()
    const assertion = form.get('client_assertion')
    if (assertion !== null) {
      const iat = issuedAt(assertion)
      if (iat !== undefined && iat > now() / 1000 + options.clockToleranceSeconds) {
        throw new OAuthError('invalid_client', 401, 'the client assertion was issued in the future (iat)')
      }
    }
    await next()
  })
}

function issuedAt(jwt: string): number | undefined {
  try {
    const { iat } = decodeJwt(jwt)
    return typeof iat === 'number' ? iat : undefined
  } catch {
    return undefined
  }
}
