import { createHash } from 'node:crypto'
import { defaults } from '../../config/defaults.js'
import type { AuthInfo } from '../../auth-info/auth-info.js'
import { InvalidTokenError, TemporarilyUnavailableError } from '../errors.js'
import { canonicalResourceUri } from './resource-uri.js'
import { scopesOf, type TokenVerifier } from './token-verifier.js'
import { BoundedMap } from '../../collections/bounded-map.js'

export interface IntrospectionVerifierOptions {
  /** The authorization server's introspection endpoint (its metadata's `introspection_endpoint`). */
  endpoint: string
  /** This resource server's client credentials at the authorization server (HTTP Basic). */
  clientId: string
  clientSecret: string
  /** This server's canonical resource URI (or its several endpoints' URIs); the token's `aud` must contain one. */
  audience: string | readonly string[]
  /** When set, the token's `iss` (if present) must equal it. */
  issuer?: string
  /** How long (ms) a result may be reused; default `introspectionCacheMs`. 0 asks every time. */
  cacheMs?: number
  fetch?: typeof globalThis.fetch
  now?: () => number
}

/**
 * Verifies opaque tokens by RFC 7662 introspection, with a bounded cache keyed by a hash of the
 * token whose entries never outlive the token (`exp`) nor `introspectionCacheMs`. Inactive,
 * expired or foreign-audience tokens are `invalid_token`; an unreachable authorization server is
 * 503 `temporarily_unavailable`.
 * @see https://www.rfc-editor.org/rfc/rfc7662
 */
export function createIntrospectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  const r = defaults.resourceServer
  const now = options.now ?? Date.now
  const fetchImpl = options.fetch ?? globalThis.fetch
  const accepted = new Set((typeof options.audience === 'string' ? [options.audience] : options.audience).map((value) => canonicalResourceUri(value)))
  if (accepted.size === 0) throw new TypeError('createIntrospectionVerifier needs an audience')
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`
  const cache = new BoundedMap<string, { info: AuthInfo; until: number }>(r.introspectionCacheEntries, { evictBeforeSet: true })

  async function introspect(token: string): Promise<Record<string, unknown>> {
    let response: Response
    try {
      response = await fetchImpl(options.endpoint, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal: AbortSignal.timeout(r.introspectionTimeoutMs),
      })
    } catch (error) {
      throw new TemporarilyUnavailableError('the authorization server could not be reached for introspection', { cause: error })
    }
    if (!response.ok) {
      await response.body?.cancel()
      throw new TemporarilyUnavailableError(`introspection answered ${response.status}`)
    }
    const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined
    if (body === undefined || typeof body !== 'object' || body === null) throw new TemporarilyUnavailableError('introspection answered a non-JSON body')
    return body
  }

  return {
    async verify(token: string): Promise<AuthInfo> {
      const key = createHash('sha256').update(token).digest('base64url')
      const cached = cache.get(key)
      if (cached !== undefined && cached.until > now()) return { ...cached.info, token }
      cache.delete(key)
      const claims = await introspect(token)
      if (claims['active'] !== true) throw new InvalidTokenError('the access token is not active (revoked, expired or unknown)')
      const exp = typeof claims['exp'] === 'number' ? claims['exp'] : undefined
      if (exp !== undefined && exp * 1000 <= now() - r.clockToleranceSeconds * 1000) throw new InvalidTokenError('the access token has expired')
      const aud = claims['aud']
      const audiences = (Array.isArray(aud) ? aud : typeof aud === 'string' ? [aud] : []).map((value) => {
        try {
          return canonicalResourceUri(String(value))
        } catch {
          return String(value)
        }
      })
      if (!audiences.some((value) => accepted.has(value))) throw new InvalidTokenError('the access token is for another resource')
      if (options.issuer !== undefined && claims['iss'] !== undefined && claims['iss'] !== options.issuer) {
        throw new InvalidTokenError('the access token comes from an untrusted issuer')
      }
      const info: AuthInfo = {
        token,
        clientId: typeof claims['client_id'] === 'string' ? claims['client_id'] : '',
        scopes: scopesOf(claims),
        ...(typeof claims['sub'] === 'string' ? { subject: claims['sub'] } : {}),
        audience: Array.isArray(aud) ? (aud as string[]) : String(aud),
        ...(exp !== undefined ? { expiresAt: exp } : {}),
        claims,
      }
      const until = Math.min(now() + (options.cacheMs ?? r.introspectionCacheMs), exp === undefined ? Number.POSITIVE_INFINITY : exp * 1000)
      if (until > now()) {
        const { token: _token, ...rest } = info
        cache.set(key, { info: { ...rest, token: '' }, until })
      }
      return info
    },
  }
}
