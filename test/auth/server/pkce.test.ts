/**
 * Issue 28, item 20: the authorization server's PKCE check (RFC 7636 §4.6) against pairs made by
 * pkce-challenge, an implementation other than the openid-client our own login helper uses, so a
 * bug shared by openid-client and the server could not hide. Raw HTTP to the token endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pkceChallenge, { verifyChallenge } from 'pkce-challenge'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { formLogin } from '../../helpers/form-login.js'
import { codeRequestUrl } from '../../helpers/pkce-pair.js'

const REDIRECT = 'http://127.0.0.1/callback'
const USER = { username: 'pia', password: 'pia password 1' }

let s: RunningAuthServer
let clientId: string

beforeAll(async () => {
  s = await startAuthServer()
  await s.as.accounts.setUser(USER.username, USER.password)
  const registration = await fetch(`${s.origin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'PKCE test client' }),
  })
  expect(registration.status).toBe(201)
  clientId = ((await registration.json()) as { client_id: string }).client_id
})
afterAll(() => s.stop(true))

async function codeFor(challenge: string, method = 'S256'): Promise<URL> {
  const url = codeRequestUrl(s.origin, { clientId, redirectUri: REDIRECT, challenge, method })
  return (await formLogin(url, { ...USER, redirectUri: REDIRECT })).callback
}

async function redeem(code: string, verifier: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${s.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT, code_verifier: verifier }),
  })
  return (await response.json()) as Record<string, unknown>
}

describe('PKCE at the token endpoint, with pairs made by pkce-challenge', () => {
  it.each([43, 128])('redeems a code with its verifier (%i characters)', async (length) => {
    const pair = await pkceChallenge(length)
    expect(pair.code_verifier).toHaveLength(length)
    const callback = await codeFor(pair.code_challenge)
    const tokens = await redeem(callback.searchParams.get('code')!, pair.code_verifier)
    expect(tokens['error']).toBeUndefined()
    expect(tokens['access_token']).toBeTypeOf('string')
  })

  it('refuses a verifier that does not match the challenge with invalid_grant', async () => {
    const pair = await pkceChallenge()
    const other = await pkceChallenge()
    expect(await verifyChallenge(other.code_verifier, pair.code_challenge)).toBe(false)
    const callback = await codeFor(pair.code_challenge)
    const tokens = await redeem(callback.searchParams.get('code')!, other.code_verifier)
    expect(tokens['error']).toBe('invalid_grant')
    expect(tokens['access_token']).toBeUndefined()
  })

  it('refuses the verifier itself sent as the challenge (the plain method is not offered)', async () => {
    const pair = await pkceChallenge(43, 'plain')
    const url = new URL(`${s.origin}/authorize`)
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'mcp',
      code_challenge: pair.code_challenge,
      code_challenge_method: 'plain',
    }).toString()
    const response = await fetch(url, { redirect: 'manual' })
    const location = new URL(response.headers.get('location')!, url)
    expect(location.searchParams.get('error')).toBe('invalid_request')
  })
})
