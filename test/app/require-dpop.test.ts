/**
 * Issue 27, item 3: `mcp-auth start --require-dpop` reaches the authorization server. The MCP
 * server takes DPoP-bound tokens only, so the token endpoint issues none that it would refuse:
 * a token request for its resource (named or the default) without a proof gets 400
 * invalid_dpop_proof saying to send one, for the authorization code, client credentials and JWT
 * bearer grants; with a proof the token is DPoP-bound, and the MCP server accepts it.
 */
import { randomUUID, createHash, randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JWT_BEARER_GRANT } from '../../src/auth/client/jwt-bearer-auth.js'
import { accessTokenHash } from '../../src/auth/resource/dpop-proof.js'
import { startCli, stopChild } from '../helpers/cli-process.js'
import { formLogin } from '../helpers/form-login.js'

const PASSWORD = 'require dpop demo password'
const REDIRECT = 'http://127.0.0.1:9/callback'
const WORKLOAD = 'https://ci.example.com'
const MACHINE = { id: 'machine', secret: 'the machine client secret, long enough' }
const WEBAPP = { id: 'webapp', secret: 'the web app client secret, long enough' }
const basic = `Basic ${Buffer.from(`${MACHINE.id}:${encodeURIComponent(MACHINE.secret)}`).toString('base64')}`
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'require-dpop-test', version: '1' } },
}

let dir: string
let origin: string
let stop: () => Promise<void>
let workloadKey: CryptoKey
let dpopKey: { privateKey: CryptoKey; jwk: JWK }

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-require-dpop-'))
  const workload = await generateKeyPair('ES256')
  workloadKey = workload.privateKey
  const pair = await generateKeyPair('ES256')
  dpopKey = { privateKey: pair.privateKey, jwk: await exportJWK(pair.publicKey) }
  const config = join(dir, 'config.json')
  await writeFile(
    config,
    JSON.stringify({
      clients: [
        {
          client_id: MACHINE.id,
          client_secret: MACHINE.secret,
          token_endpoint_auth_method: 'client_secret_basic',
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          scope: 'mcp',
        },
        { client_id: 'deployer', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER_GRANT], response_types: [], redirect_uris: [], scope: 'mcp' },
        { client_id: 'app', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], redirect_uris: [REDIRECT] },
        {
          client_id: WEBAPP.id,
          client_secret: WEBAPP.secret,
          token_endpoint_auth_method: 'client_secret_basic',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          redirect_uris: [REDIRECT],
        },
      ],
      jwtBearer: {
        issuers: [
          { issuer: WORKLOAD, jwks: { keys: [{ ...(await exportJWK(workload.publicKey)), kid: 'w1', alg: 'ES256' }] }, subjects: { 'job:deploy': { client: 'deployer' } } },
        ],
      },
    }),
  )
  const started = await startCli(['start', '--port', '0', '--data-dir', join(dir, 'data'), '--config', config, '--require-dpop'], {
    env: { MCP_AUTH_DEMO_PASSWORD: PASSWORD },
    timeoutMs: 30_000,
  })
  origin = new URL(started.url).origin
  stop = () => stopChild(started.child)
}, 45_000)

afterAll(async () => {
  await stop?.()
  await rm(dir, { recursive: true, force: true })
})

const now = (): number => Math.floor(Date.now() / 1000)

function proof(htu: string, extra: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ jti: randomUUID(), htm: 'POST', htu, iat: now(), ...extra }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: dpopKey.jwk }).sign(dpopKey.privateKey)
}

async function token(form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  })
  return { status: response.status, nonce: response.headers.get('dpop-nonce'), body: (await response.json()) as Record<string, string> }
}

/** The server's current DPoP nonce (RFC 9449 §8), from a proof without one. */
async function serverNonce(): Promise<string> {
  const challenge = await token({ grant_type: 'client_credentials', scope: 'mcp' }, { authorization: basic, dpop: await proof(`${origin}/token`) })
  expect(challenge.body['error']).toBe('use_dpop_nonce')
  return challenge.nonce!
}

/** The token request with a proof carrying the server's nonce. */
async function withProof(form: Record<string, string>, headers: Record<string, string> = {}) {
  return token(form, { ...headers, dpop: await proof(`${origin}/token`, { nonce: await serverNonce() }) })
}

function expectRefusedForDpop(answer: { status: number; body: Record<string, string> }): void {
  expect(answer.status).toBe(400)
  expect(answer.body['error']).toBe('invalid_dpop_proof')
  expect(answer.body['error_description']).toMatch(/DPoP-bound only: send a DPoP proof/)
}

const assertion = (): Promise<string> =>
  new SignJWT({ sub: 'job:deploy', aud: origin, jti: randomUUID(), iat: now(), exp: now() + 120 })
    .setProtectedHeader({ alg: 'ES256', kid: 'w1' })
    .setIssuer(WORKLOAD)
    .sign(workloadKey)

/** A code for `app` after the demo user signs in and consents, with its PKCE verifier. */
async function authorizationCode(clientId = 'app'): Promise<Record<string, string>> {
  const verifier = randomBytes(32).toString('base64url')
  const url = new URL(`${origin}/authorize`)
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'mcp',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString()
  const { callback } = await formLogin(url, { redirectUri: REDIRECT, username: 'demo', password: PASSWORD })
  return { grant_type: 'authorization_code', client_id: clientId, code: callback.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier }
}

/** An MCP initialize with the token and a proof for /mcp. */
async function initialize(accessToken: string, scheme = 'DPoP'): Promise<number> {
  const response = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `${scheme} ${accessToken}`,
      ...(scheme === 'DPoP' ? { dpop: await proof(`${origin}/mcp`, { ath: accessTokenHash(accessToken) }) } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(INITIALIZE),
  })
  await response.arrayBuffer()
  return response.status
}

describe('mcp-auth start --require-dpop at the authorization server', () => {
  it('refuses a client credentials token request without a proof, for the default resource and when it is named', async () => {
    expectRefusedForDpop(await token({ grant_type: 'client_credentials', scope: 'mcp' }, { authorization: basic }))
    expectRefusedForDpop(await token({ grant_type: 'client_credentials', scope: 'mcp', resource: `${origin}/mcp` }, { authorization: basic }))
  })

  it('issues a DPoP-bound client credentials token with a proof, which the MCP server accepts', async () => {
    const answer = await withProof({ grant_type: 'client_credentials', scope: 'mcp' }, { authorization: basic })
    expect(answer.status).toBe(200)
    expect(answer.body['token_type']).toBe('DPoP')
    expect(decodeJwt(answer.body['access_token']!)['cnf']).toEqual({ jkt: expect.any(String) })
    expect(await initialize(answer.body['access_token']!)).toBe(200)
  })

  it('refuses the JWT bearer grant without a proof, and binds its token to a proof', async () => {
    expectRefusedForDpop(await token({ grant_type: JWT_BEARER_GRANT, assertion: await assertion(), client_id: 'deployer' }))
    const jwt = await assertion()
    const answer = await withProof({ grant_type: JWT_BEARER_GRANT, assertion: jwt, client_id: 'deployer' })
    expect(answer.status).toBe(200)
    expect(answer.body['token_type']).toBe('DPoP')
    expect(await initialize(answer.body['access_token']!)).toBe(200)
  })

  it('refuses an authorization code exchange without a proof, and binds it with one', async () => {
    expectRefusedForDpop(await token(await authorizationCode()))
    const answer = await withProof(await authorizationCode())
    expect(answer.status).toBe(200)
    expect(answer.body['token_type']).toBe('DPoP')
    expect(await initialize(answer.body['access_token']!)).toBe(200)
  })

  it("refuses a confidential client's refresh without a proof before using the refresh token up", async () => {
    const webapp = { authorization: `Basic ${Buffer.from(`${WEBAPP.id}:${encodeURIComponent(WEBAPP.secret)}`).toString('base64')}` }
    const code = await authorizationCode(WEBAPP.id)
    const tokens = await withProof(code, webapp)
    expect(tokens.status).toBe(200)
    const refresh = { grant_type: 'refresh_token', refresh_token: tokens.body['refresh_token']! }
    // twice: past the one retry the refresh grace window would honour for a token used up
    expectRefusedForDpop(await token(refresh, webapp))
    expectRefusedForDpop(await token(refresh, webapp))
    // the same refresh token still works, with a proof
    const refreshed = await withProof(refresh, webapp)
    expect(refreshed.status).toBe(200)
    expect(refreshed.body['token_type']).toBe('DPoP')
    expect(await initialize(refreshed.body['access_token']!)).toBe(200)
  })

  it('says in its protected resource metadata that tokens must be DPoP-bound', async () => {
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>
    expect(metadata['dpop_bound_access_tokens_required']).toBe(true)
  })
})
