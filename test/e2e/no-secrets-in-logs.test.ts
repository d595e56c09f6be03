// Issue 33 (logs), acceptance: every flow driven with recognisable secret values at log level trace,
// then every log line searched for each secret, whole and for any 12-character piece of it.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import * as oidc from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminCall, adminToken } from '../helpers/admin-api.js'
import { runCli, stopChild } from '../helpers/cli-process.js'
import { CookieJar, formLogin } from '../helpers/form-login.js'
import { CLI_PATH } from '../helpers/paths.js'
import { pkcePair } from '../helpers/pkce-pair.js'

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const PLATFORM = 'https://platform.example.com'
const insecure = { execute: [oidc.allowInsecureRequests] }
const mark = (what: string): string => `${what}-SECRET-${randomBytes(12).toString('base64url')}`

const DEMO_PASSWORD = mark('Pw-demo')
const ROOT_PASSWORD = mark('Pw-root')
const CAROL_PASSWORD = mark('Pw-carol')
const CAROL_NEW_PASSWORD = mark('Pw-carol-new')
const WRONG_PASSWORD = mark('Pw-wrong')
const CLIENT_SECRET = mark('client-secret-long-enough')

/** Every secret the flows handled, by what it is: none may reach the log, whole or in part. */
const secrets = new Map<string, string>()
const keep = (what: string, value: string | undefined | null): void => {
  if (typeof value === 'string' && value !== '') secrets.set(`${what} #${secrets.size}`, value)
}

let dir: string
let logFile: string
let child: ChildProcess
let origin: string
let stderr = ''
let platformKey: CryptoKey

/** Values of the cookies a jar holds (session, interaction, the console's sealed ones). */
function cookieValues(jar: CookieJar): string[] {
  return jar
    .header()
    .split('; ')
    .filter((pair) => pair.includes('='))
    .map((pair) => pair.slice(pair.indexOf('=') + 1))
}

function field(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]
}

function formAction(html: string, id: string): string {
  const form = html.split('<form').find((part) => part.includes(`id="${id}"`))
  const match = form === undefined ? null : /action="([^"]+)"/.exec(form)
  if (match === null) throw new Error(`no form #${id} in ${html.slice(0, 300)}`)
  return match[1]!.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
}

/** Follows redirects with `jar` from `start` to the first page (200) that is not a sign-in page, signing in on the way. */
async function browse(start: string, jar: CookieJar, user: { username: string; password: string }): Promise<{ url: URL; html: string }> {
  let url = new URL(start)
  let init: RequestInit = {}
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(url, {
      redirect: 'manual',
      ...init,
      headers: { cookie: jar.header(url), ...(init.body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded', origin: url.origin } : {}) },
    })
    jar.store(response, url)
    init = {}
    const location = response.headers.get('location')
    if (response.status >= 300 && response.status < 400 && location !== null) {
      url = new URL(location, url)
      continue
    }
    const html = await response.text()
    if (!html.includes('id="sign-in"')) return { url, html }
    const csrf = field(html, 'csrf')!
    url = new URL(formAction(html, 'sign-in'), url)
    init = { method: 'POST', body: new URLSearchParams({ csrf, username: user.username, password: user.password }) }
  }
  throw new Error('too many redirects')
}

/** A DPoP proof (RFC 9449 §4.2) for `htm htu`, with `ath` when it goes with a token. */
async function dpopProof(key: { privateKey: CryptoKey; jwk: JWK }, htm: string, htu: string, accessToken?: string, nonce?: string): Promise<string> {
  const ath = accessToken === undefined ? {} : { ath: createHash('sha256').update(accessToken).digest('base64url') }
  return new SignJWT({ jti: randomUUID(), htm, htu, iat: Math.floor(Date.now() / 1000), ...ath, ...(nonce !== undefined ? { nonce } : {}) })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey)
}

/** An MCP initialize with `authorization` (and a DPoP proof), answered 200. */
async function mcpInitialize(authorization: string, dpop?: string): Promise<void> {
  const response = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization, ...(dpop !== undefined ? { dpop } : {}) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'no-secrets', version: '1' } },
    }),
  })
  await response.text()
  expect(response.status).toBe(200)
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-no-secrets-'))
  logFile = join(dir, 'server.log')
  const data = join(dir, 'data')
  const pair = await generateKeyPair('ES256')
  platformKey = pair.privateKey
  const config = join(dir, 'config.json')
  await writeFile(
    config,
    JSON.stringify({
      clients: [
        { client_id: 'reporter', client_secret: CLIENT_SECRET, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp' },
        { client_id: 'nightly-job', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER], response_types: [], redirect_uris: [], scope: 'mcp' },
      ],
      jwtBearer: {
        issuers: [
          {
            issuer: PLATFORM,
            jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'p1', alg: 'ES256' }] },
            subjects: { 'system:serviceaccount:jobs:nightly': { client: 'nightly-job' } },
          },
        ],
      },
    }),
  )
  for (const [name, password, admin] of [
    ['root', ROOT_PASSWORD, true],
    ['carol', CAROL_PASSWORD, false],
  ] as const) {
    const added = await runCli(['users', 'add', name, ...(admin ? ['--admin'] : []), '--password-stdin', '--data-dir', data], { input: `${password}\n` })
    expect(added.code, added.stderr).toBe(0)
  }
  child = spawn(process.execPath, [CLI_PATH, 'start', '--port', '0', '--data-dir', data, '--config', config, '--log-level', 'trace', '--log-file', logFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MCP_AUTH_DEMO_PASSWORD: DEMO_PASSWORD },
  })
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  origin = await new Promise<string>((resolve, reject) => {
    let stdout = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const match = /listening on (\S+)/.exec(stdout)
      if (match !== null) resolve(new URL(match[1]!).origin)
    })
    child.once('exit', (code) => reject(new Error(`start exited with ${code}: ${stderr}`)))
  })
})

afterAll(async () => {
  if (child !== undefined) await stopChild(child)
  await rm(dir, { recursive: true, force: true })
})

describe('the log at level trace, after every flow', () => {
  it('drives every flow with recognisable secrets', async () => {
    for (const password of [DEMO_PASSWORD, ROOT_PASSWORD, CAROL_PASSWORD, CAROL_NEW_PASSWORD, WRONG_PASSWORD, CLIENT_SECRET]) keep('password or secret', password)

    // authorization code + PKCE through the login and consent pages, the code redeemed, the refresh token rotated
    const redirectUri = 'http://127.0.0.1:9/callback'
    const config = await oidc.dynamicClientRegistration(new URL(origin), { redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
    const { verifier, challenge } = await pkcePair()
    keep('PKCE verifier', verifier)
    const jar = new CookieJar()
    const { callback } = await formLogin(
      oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'mcp', code_challenge: challenge, code_challenge_method: 'S256' }),
      {
        username: 'demo',
        password: DEMO_PASSWORD,
        redirectUri,
        jar,
      },
    )
    keep('authorization code', callback.searchParams.get('code'))
    for (const value of cookieValues(jar)) keep('cookie', value)
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })
    keep('access token', tokens.access_token)
    keep('refresh token', tokens.refresh_token)
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
    keep('access token', refreshed.access_token)
    keep('refresh token', refreshed.refresh_token)
    await mcpInitialize(`Bearer ${refreshed.access_token}`)
    // a made-up refresh token: refused, and never logged
    const madeUp = mark('refresh-token-made-up')
    keep('made-up refresh token', madeUp)
    const stale = await fetch(`${origin}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: madeUp, client_id: config.clientMetadata().client_id }),
    })
    expect(stale.status).toBe(400)

    // client credentials with a client secret, DPoP-bound, and the MCP call with its proof
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const dpopKey = { privateKey, jwk: await exportJWK(publicKey) }
    void (await calculateJwkThumbprint(dpopKey.jwk))
    const machineRequest = async (nonce?: string): Promise<Response> => {
      const tokenProof = await dpopProof(dpopKey, 'POST', `${origin}/token`, undefined, nonce)
      keep('DPoP proof', tokenProof)
      return fetch(`${origin}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`reporter:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64')}`, dpop: tokenProof },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp', resource: `${origin}/mcp` }),
      })
    }
    // the server asks for its nonce first (use_dpop_nonce), then answers
    const first = await machineRequest()
    await first.text()
    const machine = first.status === 400 ? await machineRequest(first.headers.get('dpop-nonce') ?? undefined) : first
    const machineToken = (await machine.json()) as { access_token: string; token_type: string }
    expect(machine.status, JSON.stringify(machineToken)).toBe(200)
    expect(machineToken.token_type).toBe('DPoP')
    keep('access token', machineToken.access_token)
    const callProof = await dpopProof(dpopKey, 'POST', `${origin}/mcp`, machineToken.access_token)
    keep('DPoP proof', callProof)
    await mcpInitialize(`DPoP ${machineToken.access_token}`, callProof)
    // a client secret that is wrong: refused, never logged
    const wrongSecret = mark('client-secret-wrong')
    keep('wrong client secret', wrongSecret)
    expect(
      (
        await fetch(`${origin}/token`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from(`reporter:${wrongSecret}`).toString('base64')}` },
          body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp' }),
        })
      ).status,
    ).toBe(401)

    // the JWT bearer grant: an assertion from a trusted platform
    const now = Math.floor(Date.now() / 1000)
    const assertion = await new SignJWT({ sub: 'system:serviceaccount:jobs:nightly', aud: origin, jti: randomUUID(), iat: now, exp: now + 300 })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(PLATFORM)
      .sign(platformKey)
    keep('assertion', assertion)
    const exchanged = await fetch(`${origin}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: JWT_BEARER, assertion, client_id: 'nightly-job', scope: 'mcp' }) })
    const exchangedToken = (await exchanged.json()) as { access_token: string }
    expect(exchanged.status, JSON.stringify(exchangedToken)).toBe(200)
    keep('access token', exchangedToken.access_token)
    // the same assertion again: a replay, refused, never logged
    expect(
      (await fetch(`${origin}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: JWT_BEARER, assertion, client_id: 'nightly-job', scope: 'mcp' }) })).status,
    ).toBe(400)

    // the admin API: its token, a set-password link, the link used
    const adminJar = new CookieJar()
    const admin = await adminToken(origin, { username: 'root', password: ROOT_PASSWORD }, { jar: adminJar })
    keep('admin API token', admin.access_token)
    keep('admin API refresh token', admin.refresh_token)
    for (const value of cookieValues(adminJar)) keep('cookie', value)
    const link = await adminCall(origin, admin.access_token, 'POST', '/accounts/carol/password-link')
    expect(link.status).toBe(201)
    const linkUrl = new URL(link.body.url as string)
    keep('set-password link token', linkUrl.pathname.split('/').at(-1))
    const page = await fetch(linkUrl)
    const html = await page.text()
    const set = await fetch(new URL(formAction(html, 'set-password'), linkUrl), {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin,
        cookie: page.headers
          .getSetCookie()
          .map((line) => line.split(';')[0])
          .join('; '),
      },
      body: new URLSearchParams({ csrf: field(html, 'csrf')!, password: CAROL_NEW_PASSWORD, confirm: CAROL_NEW_PASSWORD }),
    })
    expect(await set.text()).toContain('id="password-set"')

    // the console: signed in, its sealed cookies
    const consoleJar = new CookieJar()
    const consolePage = await browse(`${origin}/admin`, consoleJar, { username: 'root', password: ROOT_PASSWORD })
    expect(consolePage.url.pathname).toBe('/admin')
    for (const value of cookieValues(consoleJar)) keep('console cookie', value)
    expect(cookieValues(consoleJar).length).toBeGreaterThan(0)

    // a failed sign-in with a wrong password
    const failed = new CookieJar()
    const { challenge: other } = await pkcePair()
    let url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'mcp', code_challenge: other, code_challenge_method: 'S256' })
    let response = await fetch(url, { redirect: 'manual' })
    while (response.status >= 300 && response.status < 400) {
      failed.store(response, url)
      url = new URL(response.headers.get('location')!, url)
      response = await fetch(url, { redirect: 'manual', headers: { cookie: failed.header(url) } })
    }
    const login = await response.text()
    const refused = await fetch(new URL(formAction(login, 'sign-in'), url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin, cookie: failed.header(url) },
      body: new URLSearchParams({ csrf: field(login, 'csrf')!, username: 'demo', password: WRONG_PASSWORD }),
    })
    expect(await refused.text()).toContain('id="sign-in"')
    for (const value of cookieValues(failed)) keep('cookie', value)
  })

  it('holds none of them, whole or any 12-character piece, in any log line', async () => {
    // the file is written asynchronously: wait until the last request's access line is in
    const deadline = Date.now() + 5_000
    let log = ''
    while (Date.now() < deadline) {
      log = await readFile(logFile, 'utf8').catch(() => '')
      if ((log.match(/"msg":"request"/g) ?? []).length >= 20) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const lines = [...log.split('\n'), ...stderr.split('\n')].filter((line) => line !== '')
    // the log is there and has the flows in it (a test that finds nothing in an empty log proves nothing)
    expect(lines.filter((line) => line.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(20)
    expect(log).toContain('"route":"/token"')
    expect(log).toContain('"route":"/interaction/{uid}/login"')
    expect(log).toContain('"route":"/admin/api/accounts/{username}/password-link"')
    expect(log).toContain('"route":"/admin/password/{token}"')
    // the replayed assertion's refusal: one line, in the log
    expect(log).toMatch(/"level":"info".*JWT bearer assertion refused for client nightly-job/)
    expect(secrets.size).toBeGreaterThan(20)
    const found: string[] = []
    for (const [what, secret] of secrets) {
      const pieces = new Set<string>([secret])
      for (let i = 0; i + 12 <= secret.length; i++) pieces.add(secret.slice(i, i + 12))
      for (const piece of pieces) {
        const line = lines.find((candidate) => candidate.includes(piece))
        if (line !== undefined) {
          found.push(`${what}: "${piece}" in ${line.slice(0, 400)}`)
          break
        }
      }
    }
    expect(found).toEqual([])
  })
})
