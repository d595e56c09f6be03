/**
 * Issue 27, item 2: a DPoP proof whose `iat` is outside the resource server's window is refused
 * at the authorization server's endpoints even when it carries a valid server nonce (oidc-provider
 * checks `iat` only on proofs without one): 300 s late and a year ahead are refused at /token with
 * 400 invalid_dpop_proof, a fresh proof with the same nonce gets a bound token.
 */
import { randomUUID } from 'node:crypto'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaults } from '../../../src/config/defaults.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'

let s: RunningAuthServer
let basic: string
let key: { privateKey: CryptoKey; jwk: JWK }

beforeAll(async () => {
  s = await startAuthServer({ resources: [{ uri: 'http://127.0.0.1:1/mcp', scopes: ['mcp'] }] })
  const added = await s.as.addClient({
    client_name: 'machine',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'mcp',
  })
  basic = `Basic ${Buffer.from(`${encodeURIComponent(added.client_id)}:${encodeURIComponent(added.client_secret!)}`).toString('base64')}`
  const pair = await generateKeyPair('ES256')
  key = { privateKey: pair.privateKey, jwk: await exportJWK(pair.publicKey) }
})
afterAll(() => s.stop(true))

const now = (): number => Math.floor(Date.now() / 1000)

function proof(htu: string, iat: number, nonce?: string): Promise<string> {
  return new SignJWT({ jti: randomUUID(), htm: 'POST', htu, iat, ...(nonce !== undefined ? { nonce } : {}) })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey)
}

async function tokenRequest(dpop: string) {
  const response = await fetch(`${s.issuer}/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', dpop },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp' }),
  })
  return { status: response.status, nonce: response.headers.get('dpop-nonce'), body: (await response.json()) as Record<string, string> }
}

async function serverNonce(): Promise<string> {
  const challenge = await tokenRequest(await proof(`${s.issuer}/token`, now()))
  expect(challenge.body['error']).toBe('use_dpop_nonce')
  return challenge.nonce!
}

describe('the age of a DPoP proof at the authorization server', () => {
  it('refuses at /token a proof with a valid nonce issued 300 s ago or a year ahead, and says why', async () => {
    const nonce = await serverNonce()
    for (const iat of [now() - 300, now() + 365 * 24 * 3600]) {
      const answer = await tokenRequest(await proof(`${s.issuer}/token`, iat, nonce))
      expect(answer.status).toBe(400)
      expect(answer.body['error']).toBe('invalid_dpop_proof')
      expect(answer.body['error_description']).toMatch(/iat must be within 60 seconds/)
    }
    // a fresh proof with the same nonce is honoured
    const fresh = await tokenRequest(await proof(`${s.issuer}/token`, now(), nonce))
    expect(fresh.status).toBe(200)
    expect(fresh.body['token_type']).toBe('DPoP')
  })

  it('uses the resource server’s window, on either side of it', async () => {
    const window = defaults.resourceServer.dpop.iatWindowSeconds
    expect(defaults.authServer.dpop.iatToleranceSeconds).toBe(window)
    const nonce = await serverNonce()
    expect((await tokenRequest(await proof(`${s.issuer}/token`, now() - window + 15, nonce))).status).toBe(200)
    expect((await tokenRequest(await proof(`${s.issuer}/token`, now() + window + 15, nonce))).status).toBe(400)
  })

  it('refuses a stale proof at userinfo with 401 and a DPoP challenge', async () => {
    const response = await fetch(`${s.issuer}/me`, {
      headers: { authorization: 'DPoP some-token', dpop: await proof(`${s.issuer}/me`, now() - 300) },
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_dpop_proof"/)
    expect(((await response.json()) as Record<string, string>)['error']).toBe('invalid_dpop_proof')
  })
})
