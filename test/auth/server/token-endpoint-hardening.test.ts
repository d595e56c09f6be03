// Issue 13, item 9: a failed code redemption burns the code; a client authenticates only with its
// registered method; a client assertion issued in the future is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as oidc from 'openid-client'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { formLogin } from '../../helpers/form-login.js'
import { codeRequestUrl, pkcePair } from '../../helpers/pkce-pair.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const REDIRECT = 'http://127.0.0.1/callback'
const USER = { username: 'jon', password: 'jon password 1' }

let s: RunningAuthServer

beforeAll(async () => {
  s = await startAuthServer()
  await s.as.accounts.setUser(USER.username, USER.password)
})
afterAll(() => s.stop(true))

async function token(form: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${s.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

async function codeFor(clientId: string): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = await pkcePair()
  const url = codeRequestUrl(s.origin, { clientId, redirectUri: REDIRECT, challenge })
  const { callback } = await formLogin(url, { ...USER, redirectUri: REDIRECT })
  return { code: callback.searchParams.get('code')!, verifier }
}

describe('authorization code redemption', () => {
  it('burns the code after a redemption with the wrong verifier, so the right one fails too', async () => {
    const client = await oidc.dynamicClientRegistration(new URL(s.issuer), { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
    const clientId = client.clientMetadata().client_id
    const { code, verifier } = await codeFor(clientId)
    const wrong = await token({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT, code_verifier: (await pkcePair()).verifier })
    expect(wrong.body['error']).toBe('invalid_grant')
    const right = await token({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT, code_verifier: verifier })
    expect(right.body['access_token']).toBeUndefined()
    expect(right.body['error']).toBe('invalid_grant')
  })

  it('burns the code after a redemption with another redirect_uri', async () => {
    const client = await oidc.dynamicClientRegistration(
      new URL(s.issuer),
      { redirect_uris: [REDIRECT, 'http://127.0.0.1/other'], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    )
    const clientId = client.clientMetadata().client_id
    const { code, verifier } = await codeFor(clientId)
    expect((await token({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: 'http://127.0.0.1/other', code_verifier: verifier })).body['error']).toBe(
      'invalid_grant',
    )
    expect((await token({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT, code_verifier: verifier })).body['error']).toBe('invalid_grant')
  })
})

describe('client authentication', () => {
  it('refuses client_secret_post for a client registered for client_secret_basic, and the other way round', async () => {
    const basic = await s.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' })
    const post = await s.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_post' })
    const asPost = (c: { client_id: string; client_secret?: string }) => token({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret! })
    const asBasic = (c: { client_id: string; client_secret?: string }) =>
      token({ grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}` })
    expect((await asPost(basic)).body['error']).toBe('invalid_client')
    expect((await asBasic(post)).body['error']).toBe('invalid_client')
    expect((await asBasic(basic)).status).toBe(200)
    expect((await asPost(post)).status).toBe(200)
  })

  it('refuses a private_key_jwt assertion whose iat is in the future, even with a valid exp', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }
    const client = await s.as.addClient({
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: [jwk] },
    })
    const assertion = (iat: number) =>
      new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(client.client_id)
        .setSubject(client.client_id)
        .setAudience(s.issuer)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 600)
        .sign(privateKey)
    const now = Math.floor(Date.now() / 1000)
    const form = async (iat: number) => ({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: await assertion(iat),
    })
    const future = await token(await form(now + 3600))
    expect(future.status).toBe(401)
    expect(future.body['error']).toBe('invalid_client')
    expect((await token(await form(now))).status).toBe(200)
  })
})
