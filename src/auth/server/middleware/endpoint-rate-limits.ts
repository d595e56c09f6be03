import { decodeJwt } from 'jose'
import type { Context, Middleware, Next } from 'koa'
import { defaults } from '../../../config/defaults.js'
import { PayloadTooLargeError, TooManyRequestsError } from '../../errors.js'
import { clientAddress } from './client-address.js'
import type { Limiter, RateLimitVerdict } from './rate-limiter.js'
import { readFormOnce } from './replayable-body.js'
import { scoped } from './scoped-middleware.js'
import { BoundedMap } from '../../../collections/bounded-map.js'

export interface EndpointRateLimitOptions {
  registrationPath: string
  tokenPath: string
  registrationPerAddress: Limiter
  tokenPerAddress: Limiter
  tokenPerClient: Limiter
  /** Largest token request body read to find the client (oidc-provider's own limit). */
  maxBodyBytes: number
  /** Basic headers whose client id is kept read, and the longest kept (defaults.authServer.rateLimits). */
  keptBasicHeaders?: number
  maxKeptBasicHeaderLength?: number
}

/**
 * {@link basicClientId}, remembered per header: a client sends the same header on every request,
 * so it is decoded once. At most `max` headers up to `maxLength` characters are kept, the oldest
 * forgotten first; the answer is the one the header itself gives, so nothing a caller sends can
 * change what another's header reads as. '' stands for "no client id".
 */
function keptBasicClientIds(max: number, maxLength: number): (authorization: string) => string | undefined {
  const kept = new BoundedMap<string, string>(max)
  return (authorization) => {
    const known = kept.get(authorization)
    if (known !== undefined) return known === '' ? undefined : known
    const clientId = basicClientId(authorization)
    if (authorization.length <= maxLength) {
      kept.set(authorization, clientId ?? '')
    }
    return clientId
  }
}

/** Who a token request says it is: `client_id`, or a client assertion's `sub` (RFC 7523 §3). */
function formClientId(form: URLSearchParams): string | undefined {
  const clientId = form.get('client_id')
  if (clientId !== null && clientId !== '') return clientId
  const assertion = form.get('client_assertion')
  if (assertion === null) return undefined
  try {
    const { sub } = decodeJwt(assertion)
    return typeof sub === 'string' ? sub : undefined
  } catch {
    return undefined
  }
}

/** The client id in an HTTP Basic `Authorization` header (RFC 6749 §2.3.1), if any. */
function basicClientId(authorization: string): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization)
  if (match === null) return undefined
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return undefined
  const encoded = decoded.slice(0, colon)
  if (!encoded.includes('%') && !encoded.includes('+')) return encoded
  try {
    return decodeURIComponent(encoded.replace(/\+/g, '%20'))
  } catch {
    return undefined
  }
}

/**
 * Abuse controls on registration and token requests: per client address, and on the token
 * endpoint also per client (from the Basic header, the form's `client_id`, or a client
 * assertion's `sub`; the form is read here and replayed to oidc-provider). Past a limit it throws
 * TooManyRequestsError (429 with Retry-After, answered by `oauthErrors`). A shared limiter whose
 * store is down rejects with StorageUnavailableError, which `oauthErrors` answers with 503: the
 * request is never let through uncounted.
 */
export function endpointRateLimits(options: EndpointRateLimitOptions): Middleware {
  const r = defaults.authServer.rateLimits
  const clientIdOf = keptBasicClientIds(options.keptBasicHeaders ?? r.keptBasicHeaders, options.maxKeptBasicHeaderLength ?? r.maxKeptBasicHeaderLength)
  const check = (verdict: RateLimitVerdict): void => {
    if (!verdict.allowed) throw new TooManyRequestsError(verdict.retryAfterSeconds)
  }
  // An in-process limiter answers at once, and then nothing is awaited (no promise, no turn of
  // the event loop); a shared one (Redis) answers a promise.
  const count = (limiter: Limiter, key: string): Promise<void> | undefined => {
    const verdict = limiter.hit(key)
    if (verdict instanceof Promise) return verdict.then(check)
    check(verdict)
    return undefined
  }
  // a token request whose client is not in its Basic header, or whose limits answer later
  async function countToken(ctx: Context, next: Next, byAddress: Promise<void> | undefined): Promise<void> {
    await byAddress
    let clientId = clientIdOf(ctx.req.headers.authorization ?? '')
    if (clientId === undefined && ctx.is('application/x-www-form-urlencoded')) {
      const form = await readFormOnce(ctx, options.maxBodyBytes)
      if (form === undefined) throw new PayloadTooLargeError()
      clientId = formClientId(form)
    }
    if (clientId !== undefined) await count(options.tokenPerClient, clientId)
    await next()
  }
  const { registrationPath, tokenPath } = options
  return scoped(
    (path, method) => method === 'POST' && (path === tokenPath || path === registrationPath),
    function endpointRateLimits(ctx: Context, next: Next): Promise<void> {
      if (ctx.path === registrationPath) {
        const byAddress = count(options.registrationPerAddress, clientAddress(ctx))
        return byAddress === undefined ? next() : byAddress.then(() => next())
      }
      const byAddress = count(options.tokenPerAddress, clientAddress(ctx))
      const clientId = byAddress === undefined ? clientIdOf(ctx.req.headers.authorization ?? '') : undefined
      if (clientId === undefined) return countToken(ctx, next, byAddress)
      const byClient = count(options.tokenPerClient, clientId)
      return byClient === undefined ? next() : byClient.then(() => next())
    },
  )
}
