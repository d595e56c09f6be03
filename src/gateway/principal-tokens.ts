import { randomUUID } from 'node:crypto'
import { defaults } from '../config/defaults.js'
import type { Principal } from './principal.js'
import type { PrincipalTokenSigner } from './principal-token-signer.js'

/**
 * The principal JWT of one upstream session: minted on first use, and again whenever the one in
 * hand is within `defaults.gateway.principalTokenRenewBeforeSeconds` of its expiry, so a session
 * that lasts hours always sends one the upstream accepts. Concurrent requests share one minting.
 */
export function principalTokens(
  signer: PrincipalTokenSigner,
  principal: Principal,
  audience: string,
  ttlSeconds: number = defaults.gateway.principalTokenTtlSeconds,
): () => Promise<string> {
  let current: { token: Promise<string>; exp: number } | undefined
  return () => {
    const now = Math.floor(Date.now() / 1000)
    if (current === undefined || current.exp - now <= defaults.gateway.principalTokenRenewBeforeSeconds) {
      const exp = now + ttlSeconds
      const token = signer.sign({
        aud: audience,
        ...(principal.subject !== undefined ? { sub: principal.subject } : {}),
        client_id: principal.clientId,
        scope: principal.scope,
        iat: now,
        exp,
        jti: randomUUID(),
      })
      const minted = { token, exp }
      current = minted
      // a failed signing is not kept: the next request tries again
      token.catch(() => {
        if (current === minted) current = undefined
      })
    }
    return current.token
  }
}
