import type { AuthInfo } from '../../auth-info/auth-info.js'

/** Turns a bearer token into what the MCP handlers see, or throws an `InvalidTokenError`. */
export interface TokenVerifier {
  verify(token: string): Promise<AuthInfo>
}

/** Scopes from a `scope` string (RFC 9068 §2.2.3) or an `scp` array. */
export function scopesOf(claims: Record<string, unknown>): string[] {
  const scope = claims['scope']
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '')
  const scp = claims['scp']
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string')
  return []
}
