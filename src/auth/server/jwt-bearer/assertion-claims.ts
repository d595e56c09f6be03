import type { JWTPayload } from 'jose'
import { defaults } from '../../../config/defaults.js'

/**
 * What jwtVerify leaves to us (RFC 7523 §3): the reason an assertion's verified claims are
 * refused, or undefined. `iat` may not lie ahead beyond the clock skew; the lifetime is capped
 * from now as well as from `iat` (an `iat` in the future must not stretch it); `jti` is a
 * non-empty string (it keys the one-use record); `sub` is a non-empty string.
 */
export function assertionClaimsProblem(payload: JWTPayload, now: number = Math.floor(Date.now() / 1000)): string | undefined {
  const j = defaults.authServer.jwtBearer
  const { exp, iat, jti, sub } = payload
  if (typeof exp !== 'number') return "the assertion's exp claim is missing or invalid"
  if (iat !== undefined && (typeof iat !== 'number' || !Number.isFinite(iat))) return "the assertion's iat claim is invalid"
  if (iat !== undefined && iat > now + j.clockToleranceSeconds) return "the assertion's iat lies in the future"
  if (exp - now > j.maxAssertionLifetimeSeconds + j.clockToleranceSeconds || exp - (iat ?? now) > j.maxAssertionLifetimeSeconds) {
    return `the assertion lives longer than ${j.maxAssertionLifetimeSeconds} seconds`
  }
  if (typeof jti !== 'string' || jti === '') return "the assertion's jti claim must be a non-empty string"
  if (typeof sub !== 'string' || sub === '') return "the assertion's sub claim must be a non-empty string"
  return undefined
}
