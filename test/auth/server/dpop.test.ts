/**
 * Issue 17: DPoP (RFC 9449) at our authorization server, through oidc-provider's feature: server
 * nonces, tokens bound to the proof's key (`cnf.jkt`, token_type DPoP) for client credentials and
 * the authorization code (and a public client's refresh token), introspection saying so, and the
 * policy that makes DPoP required per client or per resource. Proofs made with jose by hand; the
 * code flow with openid-client's own DPoP support.
 */
import { randomUUID } from 'node:crypto'
import * as oidc from 'openid-client'
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { CookieJar, formLogin } from '../../helpers/form-login.js'
import { pkcePair } from '../../helpers/pkce-pair.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const REDIRECT = 'http://127.0.0.1/callback'
const ADA = { username: 'ada', password: 'ada password 1' }

interface Key {
  privateKey: CryptoKey
  jwk: JWK
  jkt: string
}

async function newKey(): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256')
  const jwk = await exportJWK(publicKey)
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') }
}

function proof(key: Key, htu: string, nonce?: string): Promise<string> {
  return new SignJWT({ jti: randomUUID(), htm: 'POST', htu, iat: Math.floor(Date.now() / 1000), ...(nonce !== undefined ? { nonce } : {}) })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey)
}

let s: RunningAuthServer
let machine: { id: string; basic: string }
let boundOnly: { id: string; basic: string }

async function addMachine(extra: Record<string, unknown> = {}): Promise<{ id: string; basic: string }> {
  const added = await s.as.addClient({
    client_name: 'machine',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'mcp',
    ...extra,
  })
  return { id: added.client_id, basic: `Basic ${Buffer.from(`${encodeURIComponent(added.client_id)}:${encodeURIComponent(added.client_secret!)}`).toString('base64')}` }
}

beforeAll(async () => {
  s = await startAuthServer({
    resources: [
      { uri: 'http://127.0.0.1:1/mcp', scopes: ['mcp'] },
      { uri: 'http://127.0.0.1:2/bound-only', scopes: ['mcp'], requireDpop: true },
    ],
  })
  await s.as.accounts.setUser(ADA.username, ADA.password, {}, ['mcp'])
  machine = await addMachine()
  boundOnly = await addMachine({ dpop_bound_access_tokens: true })
})
afterAll(() => s.stop(true))

const tokenUrl = () => `${s.issuer}/token`

async function tokenRequest(client: { basic: string }, dpop: string | undefined, resource = 'http://127.0.0.1:1/mcp') {
  const response = await fetch(tokenUrl(), {
    method: 'POST',
    headers: { authorization: client.basic, 'content-type': 'application/x-www-form-urlencoded', ...(dpop !== undefined ? { dpop } : {}) },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp', resource }),
  })
  return { status: response.status, nonce: response.headers.get('dpop-nonce'), body: (await response.json()) as Record<string, string> }
}

/** A client credentials token with a proof, answering the nonce challenge once. */
async function boundToken(key: Key, client = machine, resource?: string) {
  const first = await tokenRequest(client, await proof(key, tokenUrl()), resource)
  expect(first.status).toBe(400)
  expect(first.body['error']).toBe('use_dpop_nonce')
  expect(first.nonce).toEqual(expect.any(String))
  return tokenRequest(client, await proof(key, tokenUrl(), first.nonce!), resource)
}

describe('DPoP at the authorization server', () => {
  it('lists the proof algorithms in its metadata (asymmetric only)', async () => {
    const metadata = (await (await fetch(`${s.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, string[]>
    expect(metadata['dpop_signing_alg_values_supported']).toEqual(expect.arrayContaining(['ES256', 'PS256', 'EdDSA']))
    expect(metadata['dpop_signing_alg_values_supported']!.some((alg) => alg.startsWith('HS') || alg === 'none')).toBe(false)
  })

  it('asks for its nonce first, then binds the client credentials token to the proof key', async () => {
    const key = await newKey()
    const answer = await boundToken(key)
    expect(answer.status).toBe(200)
    expect(answer.body['token_type']).toBe('DPoP')
    expect(decodeJwt(answer.body['access_token']!)['cnf']).toEqual({ jkt: key.jkt })
  })

  it('refuses a proof used twice, and one for another URI', async () => {
    const key = await newKey()
    const first = await tokenRequest(machine, await proof(key, tokenUrl()))
    const once = await proof(key, tokenUrl(), first.nonce!)
    expect((await tokenRequest(machine, once)).status).toBe(200)
    const replay = await tokenRequest(machine, once)
    expect(replay.status).toBe(400)
    // oidc-provider's answer at the token endpoint (its description stays generic)
    expect(replay.body['error']).toBe('invalid_grant')
    const elsewhere = await tokenRequest(machine, await proof(key, `${s.origin}/elsewhere`, first.nonce!))
    expect(elsewhere.body['error']).toBe('invalid_dpop_proof')
  })

  it('reports a bound token as DPoP with its cnf in introspection', async () => {
    const key = await newKey()
    const token = (await boundToken(key)).body['access_token']!
    const response = await fetch(`${s.issuer}/token/introspection`, {
      method: 'POST',
      headers: { authorization: machine.basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    })
    const body = (await response.json()) as Record<string, unknown>
    expect(body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } })
  })

  it('keeps giving Bearer tokens, without cnf, to a request without a proof', async () => {
    const answer = await tokenRequest(machine, undefined)
    expect(answer.status).toBe(200)
    expect(answer.body['token_type']).toBe('Bearer')
    expect(decodeJwt(answer.body['access_token']!)['cnf']).toBeUndefined()
  })

  it('refuses a proof-less request from a client registered with dpop_bound_access_tokens, and binds its tokens', async () => {
    const refused = await tokenRequest(boundOnly, undefined)
    expect(refused.status).toBe(400)
    const key = await newKey()
    const bound = await boundToken(key, boundOnly)
    expect(bound.status).toBe(200)
    expect(bound.body['token_type']).toBe('DPoP')
  })

  it('refuses a proof-less request for a resource that takes bound tokens only', async () => {
    const refused = await tokenRequest(machine, undefined, 'http://127.0.0.1:2/bound-only')
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining('DPoP-bound only') })
    const bound = await boundToken(await newKey(), machine, 'http://127.0.0.1:2/bound-only')
    expect(bound.status).toBe(200)
    expect(bound.body['token_type']).toBe('DPoP')
  })

  it("binds a public client's code-flow tokens and refresh token to its key: another key cannot refresh", async () => {
    const config = await oidc.dynamicClientRegistration(
      new URL(s.issuer),
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'DPoP app' },
      oidc.None(),
      insecure,
    )
    const keyPair = await oidc.randomDPoPKeyPair('ES256')
    const handle = oidc.getDPoPHandle(config, keyPair)
    const { verifier, challenge } = await pkcePair()
    const state = oidc.randomState()
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      resource: 'http://127.0.0.1:1/mcp',
      scope: 'mcp',
    })
    const { callback } = await formLogin(url, { ...ADA, redirectUri: REDIRECT, jar: new CookieJar() })
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, undefined, { DPoP: handle })
    expect(tokens.token_type.toLowerCase()).toBe('dpop')
    const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey), 'sha256')
    expect(decodeJwt(tokens.access_token)['cnf']).toEqual({ jkt })
    expect(tokens.refresh_token).toEqual(expect.any(String))

    const thief = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'))
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!, { resource: 'http://127.0.0.1:1/mcp' }, { DPoP: thief })).rejects.toThrow()
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!, { resource: 'http://127.0.0.1:1/mcp' })).rejects.toThrow()
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, { resource: 'http://127.0.0.1:1/mcp' }, { DPoP: handle })
    expect(decodeJwt(refreshed.access_token)['cnf']).toEqual({ jkt })
  })
})
