/**
 * Issue 27, item 6: the JWT bearer grant's claim checks. An `iat` far ahead cannot stretch the
 * lifetime cap, `jti` must be a string, a `sub` named like an Object.prototype member is an
 * unmapped subject (not a 500), and an account-mapped subject gets no more than the requesting
 * client registered.
 */
import { randomUUID } from 'node:crypto'
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JWT_BEARER_GRANT } from '../../../src/auth/server/provider/jwt-bearer-grant.js'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

const CI = 'https://ci.example.com'
let key: CryptoKey
let stack: ProtectedStack

beforeAll(async () => {
  const pair = await generateKeyPair('ES256')
  key = pair.privateKey
  stack = await startProtectedStack({
    as: {
      clients: [{ client_id: 'deployer', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER_GRANT], response_types: [], redirect_uris: [], scope: 'mcp' }],
      jwtBearer: {
        issuers: [
          {
            issuer: CI,
            jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), kty: 'EC', kid: 'ci1', alg: 'ES256' }] },
            // the demo account may have `mcp mcp:admin`
            subjects: { 'repo:acme/app:ref:main': { client: 'deployer' }, 'job:nightly': { account: 'demo' } },
          },
        ],
      },
    },
  })
})
afterAll(async () => {
  await stack.stop()
})

function assertion(claims: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ sub: 'repo:acme/app:ref:main', aud: stack.origin, jti: randomUUID(), iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'ci1' })
    .setIssuer(CI)
    .sign(key)
}

async function grant(jwt: string, extra: Record<string, string> = {}) {
  const response = await fetch(`${stack.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: jwt, client_id: 'deployer', resource: `${stack.origin}/mcp`, ...extra }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, string> }
}

describe('the JWT bearer grant claim checks', () => {
  it('refuses an assertion whose iat lies ahead beyond the clock skew, however short its exp - iat', async () => {
    const tenYears = Math.floor(Date.now() / 1000) + 10 * 365 * 24 * 3600
    const answer = await grant(await assertion({ iat: tenYears, exp: tenYears + 3000 }))
    expect(answer.status).toBe(400)
    expect(answer.body).toMatchObject({ error: 'invalid_grant', error_description: "the assertion's iat lies in the future" })
  })

  it('measures the lifetime cap from now when iat is absent or recent', async () => {
    const now = Math.floor(Date.now() / 1000)
    expect((await grant(await assertion({ iat: undefined, exp: now + 3600 + 120 }))).body['error_description']).toBe('the assertion lives longer than 3600 seconds')
    expect((await grant(await assertion({ iat: now + 20, exp: now + 20 + 3600 }))).status).toBe(200)
  })

  it('refuses a jti that is not a non-empty string', async () => {
    for (const jti of [12345, '', ['a'], { id: 'a' }]) {
      const answer = await grant(await assertion({ jti }))
      expect(answer.status, JSON.stringify(jti)).toBe(400)
      expect(answer.body['error'], JSON.stringify(jti)).toBe('invalid_grant')
      expect(answer.body['error_description'], JSON.stringify(jti)).toMatch(/jti/)
    }
  })

  it('answers a subject named like an Object.prototype member as unmapped, not with a server error', async () => {
    for (const sub of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const answer = await grant(await assertion({ sub }))
      expect(answer.status, sub).toBe(400)
      expect(answer.body, sub).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion subject is not mapped to a client or an account here' })
    }
  })

  it("caps an account-mapped subject's token at the client's registered scope", async () => {
    const answer = await grant(await assertion({ sub: 'job:nightly' }))
    expect(answer.status).toBe(200)
    expect(answer.body['scope']).toBe('mcp')
    expect(decodeJwt(answer.body['access_token']!)['scope']).toBe('mcp')
    const wider = await grant(await assertion({ sub: 'job:nightly' }), { scope: 'mcp mcp:admin' })
    expect(wider.status).toBe(400)
    expect(wider.body['error']).toBe('invalid_scope')
  })
})
