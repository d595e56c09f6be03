import { afterEach, describe, expect, it, vi } from 'vitest'
import type { PrincipalTokenClaims } from '../../src/gateway/principal-token-signer.js'
import { principalTokens } from '../../src/gateway/principal-tokens.js'

const PRINCIPAL = { key: '["iss","alice","app"]', subject: 'alice', clientId: 'app', scope: 'mcp files:read' }

function recordingSigner() {
  const signed: PrincipalTokenClaims[] = []
  return { signed, signer: { sign: async (claims: PrincipalTokenClaims) => (signed.push(claims), `token-${signed.length}`) } }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('principalTokens', () => {
  it('mints the claims of the principal for the upstream audience, valid for the TTL', async () => {
    const { signed, signer } = recordingSigner()
    expect(await principalTokens(signer, PRINCIPAL, 'http://127.0.0.1:9000/mcp')()).toBe('token-1')
    expect(signed[0]).toMatchObject({ aud: 'http://127.0.0.1:9000/mcp', sub: 'alice', client_id: 'app', scope: 'mcp files:read' })
    expect(signed[0]!.exp - signed[0]!.iat).toBe(300)
    expect(signed[0]!.jti).toEqual(expect.any(String))
  })

  it('keeps the token until it is within a minute of expiry, then mints a fresh one', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-26T12:00:00Z') })
    const { signed, signer } = recordingSigner()
    const token = principalTokens(signer, PRINCIPAL, 'http://upstream/mcp')
    expect(await token()).toBe('token-1')
    vi.setSystemTime(new Date('2026-11-26T12:03:59Z'))
    expect(await token()).toBe('token-1')
    vi.setSystemTime(new Date('2026-11-26T12:04:00Z'))
    expect(await token()).toBe('token-2')
    expect(signed[1]!.jti).not.toBe(signed[0]!.jti)
    expect(signed[1]!.exp).toBe(Date.parse('2026-11-26T12:09:00Z') / 1000)
  })

  it('shares one minting between concurrent requests, and retries after a failed one', async () => {
    let calls = 0
    const token = principalTokens({ sign: async () => (++calls === 1 ? Promise.reject(new Error('no key')) : `token-${calls}`) }, PRINCIPAL, 'http://upstream/mcp')
    const [a, b] = await Promise.allSettled([token(), token()])
    expect(a.status).toBe('rejected')
    expect(b.status).toBe('rejected')
    expect(calls).toBe(1)
    expect(await token()).toBe('token-2')
  })
})
