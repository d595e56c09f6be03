/**
 * Issue 28, item 17: who may introspect and revoke which token is our written decision (the policy
 * oidc-provider 9 ships as a default, kept as it was), so oidc-provider prints no "default
 * allowedPolicy … you SHOULD change it" notice. Opaque refresh tokens: oidc-provider's own endpoints.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { formLogin } from '../../helpers/form-login.js'
import { pkcePair } from '../../helpers/pkce-pair.js'

const REDIRECT = 'http://127.0.0.1/callback'
const USER = { username: 'iris', password: 'iris password 1' }

type Caller = { client_id: string; client_secret?: string }

let s: RunningAuthServer
let publicClient: Caller
let confidential: Caller
let resourceServer: Caller
let publicRefresh: string
let confidentialRefresh: string
const notices: string[] = []

function authHeaders(caller: Caller): Record<string, string> {
  return caller.client_secret === undefined ? {} : { authorization: `Basic ${Buffer.from(`${caller.client_id}:${caller.client_secret}`).toString('base64')}` }
}

function form(caller: Caller, fields: Record<string, string>): URLSearchParams {
  return new URLSearchParams(caller.client_secret === undefined ? { client_id: caller.client_id, ...fields } : fields)
}

async function post(path: string, caller: Caller, fields: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${s.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...authHeaders(caller) },
    body: form(caller, fields),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) }
}

async function refreshTokenFor(caller: Caller): Promise<string> {
  const { verifier, challenge } = await pkcePair()
  const url = new URL(`${s.origin}/authorize`)
  url.search = new URLSearchParams({
    client_id: caller.client_id,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'mcp',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString()
  const { callback } = await formLogin(url, { ...USER, redirectUri: REDIRECT })
  const tokens = await post('/token', caller, { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier })
  expect(tokens.body['refresh_token'], JSON.stringify(tokens.body)).toBeTypeOf('string')
  return tokens.body['refresh_token'] as string
}

const introspect = (caller: Caller, token: string) => post('/token/introspection', caller, { token })
const revoke = (caller: Caller, token: string) => post('/token/revocation', caller, { token })

beforeAll(async () => {
  // oidc-provider says its notices once per process, with console.info: listen before it loads them
  const info = console.info
  vi.spyOn(console, 'info').mockImplementation((...args: unknown[]) => {
    if (String(args[0]).includes('oidc-provider NOTICE')) notices.push(String(args[0]))
    else info(...args)
  })
  s = await startAuthServer()
  await s.as.accounts.setUser(USER.username, USER.password)
  const codeClient = { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }
  publicClient = await s.as.addClient({ client_name: 'public app', token_endpoint_auth_method: 'none', ...codeClient })
  confidential = await s.as.addClient({ client_name: 'web app', ...codeClient })
  resourceServer = await s.as.addClient({ client_name: 'resource server', grant_types: ['client_credentials'], response_types: [], redirect_uris: [] })
  publicRefresh = await refreshTokenFor(publicClient)
  confidentialRefresh = await refreshTokenFor(confidential)
})
afterAll(async () => {
  vi.restoreAllMocks()
  await s.stop(true)
})

describe('introspection', () => {
  it('answers an authenticated client about any token', async () => {
    expect((await introspect(resourceServer, publicRefresh)).body['active']).toBe(true)
    expect((await introspect(resourceServer, confidentialRefresh)).body['active']).toBe(true)
  })

  it("answers a public client about its own tokens only: another client's token is inactive to it", async () => {
    expect((await introspect(publicClient, publicRefresh)).body['active']).toBe(true)
    expect((await introspect(publicClient, confidentialRefresh)).body).toEqual({ active: false })
  })
})

describe('revocation', () => {
  it("ignores a public client revoking another client's token (200, the token lives on)", async () => {
    expect((await revoke(publicClient, confidentialRefresh)).status).toBe(200)
    expect((await introspect(resourceServer, confidentialRefresh)).body['active']).toBe(true)
  })

  it("refuses an authenticated client revoking another client's token with invalid_request", async () => {
    const refused = await revoke(resourceServer, confidentialRefresh)
    expect(refused.status).toBe(400)
    expect(refused.body['error']).toBe('invalid_request')
    expect((await introspect(resourceServer, confidentialRefresh)).body['active']).toBe(true)
  })

  it('revokes a client its own token', async () => {
    expect((await revoke(confidential, confidentialRefresh)).status).toBe(200)
    expect((await introspect(resourceServer, confidentialRefresh)).body['active']).toBe(false)
  })
})

describe('oidc-provider', () => {
  it('printed no "you SHOULD change it" notice on the way', () => {
    expect(notices).toEqual([])
  })
})
