/**
 * Issue 27, item 1: a one-time value is used once, however many copies arrive at once and on
 * however many nodes. Twelve concurrent token requests carrying the same JWT bearer assertion
 * (same `jti`), the same DPoP proof, or the same `private_key_jwt` client assertion get exactly
 * one token and eleven OAuth errors: on one `mcp-auth start --redis` node, split across two
 * behind a real HAProxy on one real redis-server, and on one embedded (lowdb) server.
 */
import type { ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JWT_BEARER_GRANT } from '../../../src/auth/client/jwt-bearer-auth.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { startCli, stopChild } from '../../helpers/cli-process.js'
import { freePort } from '../../helpers/free-port.js'
import { startHaproxy, type Haproxy } from '../../helpers/haproxy.js'
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js'

const N = 12
const WORKLOAD = 'https://ci.example.com'
const MACHINE = { id: 'machine', secret: 'the machine client secret, long enough' }

interface Keys {
  workload: CryptoKey
  client: CryptoKey
  dpop: { privateKey: CryptoKey; jwk: JWK }
}

/** Where token requests go: `issuer` is what proofs and assertions name, `url` where they are sent. */
interface Target {
  issuer: string
  url: string
  headers: Record<string, string>
}

interface Answer {
  status: number
  body: Record<string, unknown>
  servedBy: string | null
}

let keys: Keys

async function serverConfig(): Promise<Record<string, unknown>> {
  const workload = await generateKeyPair('ES256')
  const client = await generateKeyPair('ES256')
  const dpop = await generateKeyPair('ES256')
  keys = { workload: workload.privateKey, client: client.privateKey, dpop: { privateKey: dpop.privateKey, jwk: await exportJWK(dpop.publicKey) } }
  return {
    // twelve token requests of one client at once: the per-client rate limit is not what is tested
    rateLimits: false,
    clients: [
      { client_id: 'deployer', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER_GRANT], response_types: [], redirect_uris: [], scope: 'mcp' },
      {
        client_id: MACHINE.id,
        client_secret: MACHINE.secret,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: 'mcp',
      },
      {
        client_id: 'keyed',
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks: { keys: [{ ...(await exportJWK(client.publicKey)), kid: 'k1', alg: 'ES256' }] },
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: 'mcp',
      },
    ],
    jwtBearer: {
      issuers: [{ issuer: WORKLOAD, jwks: { keys: [{ ...(await exportJWK(workload.publicKey)), kid: 'w1', alg: 'ES256' }] }, subjects: { 'job:deploy': { client: 'deployer' } } }],
    },
  }
}

/** A form POST to the target's /token (node:http: a request straight to a node carries the public Host, as the proxy's do). */
function post(target: Target, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer & { nonce: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${target.url}/token`,
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...target.headers, ...headers } },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => {
          const header = (name: string): string | undefined => {
            const value = response.headers[name]
            return typeof value === 'string' ? value : undefined
          }
          resolve({
            status: response.statusCode ?? 0,
            body: JSON.parse(text) as Record<string, unknown>,
            servedBy: header('x-served-by') ?? null,
            nonce: header('dpop-nonce'),
          })
        })
      },
    )
    request.on('error', reject)
    request.end(new URLSearchParams(form).toString())
  })
}

const now = (): number => Math.floor(Date.now() / 1000)
const basic = `Basic ${Buffer.from(`${MACHINE.id}:${encodeURIComponent(MACHINE.secret)}`).toString('base64')}`

/** A JWT bearer assertion for `deployer`, one `jti`. */
async function bearerAssertionRequest(target: Target): Promise<() => Promise<Answer>> {
  const assertion = await new SignJWT({ sub: 'job:deploy', aud: target.issuer, jti: randomUUID(), iat: now(), exp: now() + 120 })
    .setProtectedHeader({ alg: 'ES256', kid: 'w1' })
    .setIssuer(WORKLOAD)
    .sign(keys.workload)
  return () => post(target, { grant_type: JWT_BEARER_GRANT, assertion, client_id: 'deployer' })
}

/** One DPoP proof (with the server's nonce) for a client_credentials request. */
async function dpopProofRequest(target: Target): Promise<() => Promise<Answer>> {
  const proof = (nonce?: string): Promise<string> =>
    new SignJWT({ jti: randomUUID(), htm: 'POST', htu: `${target.issuer}/token`, iat: now(), ...(nonce !== undefined ? { nonce } : {}) })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: keys.dpop.jwk })
      .sign(keys.dpop.privateKey)
  const form = { grant_type: 'client_credentials', scope: 'mcp' }
  const challenge = await post(target, form, { authorization: basic, dpop: await proof() })
  expect(challenge.body['error']).toBe('use_dpop_nonce')
  const nonce = challenge.nonce
  expect(nonce).toEqual(expect.any(String))
  const once = await proof(nonce!)
  return () => post(target, form, { authorization: basic, dpop: once })
}

/** One private_key_jwt client assertion of `keyed`. */
async function clientAssertionRequest(target: Target): Promise<() => Promise<Answer>> {
  const assertion = await new SignJWT({ aud: target.issuer, jti: randomUUID(), iat: now(), exp: now() + 120 })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer('keyed')
    .setSubject('keyed')
    .sign(keys.client)
  return () =>
    post(target, {
      grant_type: 'client_credentials',
      scope: 'mcp',
      client_id: 'keyed',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    })
}

const KINDS = [
  { kind: 'a JWT bearer assertion (one jti)', prepare: bearerAssertionRequest, refusal: { status: 400, error: 'invalid_grant' } },
  { kind: 'a DPoP proof', prepare: dpopProofRequest, refusal: { status: 400, error: expect.stringMatching(/^(invalid_grant|invalid_dpop_proof)$/) } },
  { kind: 'a private_key_jwt client assertion', prepare: clientAssertionRequest, refusal: { status: 401, error: 'invalid_client' } },
] as const

/** N copies of one request at once: one token, N−1 OAuth refusals. */
async function expectSingleUse(target: () => Target, kind: (typeof KINDS)[number]): Promise<Answer[]> {
  const send = await kind.prepare(target())
  const answers = await Promise.all(Array.from({ length: N }, send))
  const won = answers.filter((answer) => answer.status === 200)
  const refused = answers.filter((answer) => answer.status !== 200)
  expect(
    won.map((answer) => answer.body['token_type']),
    JSON.stringify(answers.map((answer) => answer.body)),
  ).toHaveLength(1)
  expect(won[0]!.body['access_token']).toEqual(expect.any(String))
  for (const answer of refused) {
    expect(answer.status).toBe(kind.refusal.status)
    expect(answer.body).toMatchObject({ error: kind.refusal.error, error_description: expect.any(String) })
  }
  return answers
}

describe('one-time values on Redis nodes (mcp-auth start --redis)', () => {
  let redis: RedisServer
  let proxy: Haproxy
  let dataDir: string
  let configFile: string
  let ports: number[] = []
  const children: ChildProcess[] = []

  beforeAll(async () => {
    redis = await startRedisServer()
    dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-replay-'))
    configFile = `${dataDir}-config.json`
    await writeFile(configFile, JSON.stringify(await serverConfig()))
    ports = await Promise.all([freePort(), freePort()])
    proxy = await startHaproxy(ports)
    // the first node makes the shared key files, the second reads them
    for (const port of ports) {
      const { child } = await startCli(
        ['start', '--redis', redis.url, '--issuer', proxy.origin, '--trust-proxy', '--port', String(port), '--data-dir', dataDir, '--config', configFile],
        {
          env: { MCP_AUTH_DEMO_PASSWORD: 'replay demo password' },
          timeoutMs: 30_000,
        },
      )
      children.push(child)
    }
    // until HAProxy's health checks see both nodes up
    const deadline = Date.now() + 10_000
    for (;;) {
      const seen = new Set<string | null>()
      for (let i = 0; i < 6; i++) seen.add((await fetch(`${proxy.origin}/healthz`)).headers.get('x-served-by'))
      if (seen.has('n0') && seen.has('n1')) break
      if (Date.now() > deadline) throw new Error('HAProxy does not send to both nodes')
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }, 60_000)

  afterAll(async () => {
    await Promise.all(children.map((child) => stopChild(child, 'SIGKILL')))
    await proxy?.close()
    await redis?.close()
    await rm(dataDir, { recursive: true, force: true })
    await rm(configFile, { force: true })
  })

  // one node, reached directly as the proxy would (it trusts the proxy's headers)
  const oneNode = (): Target => ({ issuer: proxy.origin, url: `http://127.0.0.1:${ports[0]}`, headers: { host: new URL(proxy.origin).host, 'x-forwarded-proto': 'http' } })
  const bothNodes = (): Target => ({ issuer: proxy.origin, url: proxy.origin, headers: {} })

  for (const kind of KINDS) {
    it(`accepts ${kind.kind} once when ${N} copies reach one node at once`, async () => {
      await expectSingleUse(oneNode, kind)
    })

    it(`accepts ${kind.kind} once when ${N} copies are split across two nodes`, async () => {
      const answers = await expectSingleUse(bothNodes, kind)
      expect(new Set(answers.map((answer) => answer.servedBy))).toEqual(new Set(['n0', 'n1']))
    })
  }

  // last: it stops redis-server
  it('answers a one-time value 503 temporarily_unavailable while the store is away, and takes it once it is back', async () => {
    const assertion = await new SignJWT({ sub: 'job:deploy', aud: proxy.origin, jti: randomUUID(), iat: now(), exp: now() + 120 })
      .setProtectedHeader({ alg: 'ES256', kid: 'w1' })
      .setIssuer(WORKLOAD)
      .sign(keys.workload)
    const send = () => post(oneNode(), { grant_type: JWT_BEARER_GRANT, assertion, client_id: 'deployer' })
    await redis.stop()
    const away = await send()
    expect(away.status).toBe(503)
    expect(away.body).toMatchObject({ error: 'temporarily_unavailable' })
    await redis.start()
    // the connection comes back on its own; the value was not used up by the refused try
    const deadline = Date.now() + 10_000
    let back = await send()
    while (back.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      back = await send()
    }
    expect(back.status).toBe(200)
    expect((await send()).body).toMatchObject({ error: 'invalid_grant' })
  })
})

describe('one-time values on one embedded (lowdb) server', () => {
  let server: RunningAuthServer

  beforeAll(async () => {
    server = await startAuthServer(await serverConfig())
  })
  afterAll(() => server.stop(true))

  for (const kind of KINDS) {
    it(`accepts ${kind.kind} once when ${N} copies arrive at once`, async () => {
      await expectSingleUse(() => ({ issuer: server.issuer, url: server.origin, headers: {} }), kind)
    })
  }
})
