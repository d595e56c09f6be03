/**
 * Issue 27, item 5: a trusted issuer's keys and discovery are fetched through the one outbound
 * fetch of the authorization server: an endless JWKS is cut at `defaults.outbound.maxBytes`
 * (quickly, the process' memory barely moving), a discovery that redirects is not followed, an
 * issuer on a private address needs `allowPrivateAddresses`, and an unknown `kid` fetches the
 * keys again at most once per cooldown.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JWT_BEARER_GRANT } from '../../../src/auth/server/provider/jwt-bearer-grant.js'
import { createAuthorizationServer } from '../../../src/auth/server/create-authorization-server.js'
import { defaults } from '../../../src/config/defaults.js'
import { Observer } from '../../../src/observe/observer.js'
import { memoryLog } from '../../helpers/memory-log.js'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

const JWKS_LIMIT = 400 * 1024 * 1024
let key: CryptoKey
let jwk: JWK
let stack: ProtectedStack
let endless: Server
let endlessOrigin: string
let endlessWritten = 0
let endlessClosed = false
let target: Server
let targetOrigin: string
let redirecting: Server
let redirectingOrigin: string
let rotating: Server
let rotatingOrigin: string
let rotatingHits = 0
// the server's log, where the grant says what it refused and why
const { log, messages: logged } = memoryLog()

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  const pair = await generateKeyPair('ES256')
  key = pair.privateKey
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }
  // a JWKS of 400 MB: an opening, then blanks for as long as the reader reads
  endless = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{"keys":[')
    const chunk = Buffer.alloc(256 * 1024, 0x20)
    const pump = () => {
      while (endlessWritten < JWKS_LIMIT && !res.destroyed) {
        endlessWritten += chunk.length
        if (!res.write(chunk)) return void res.once('drain', pump)
      }
      res.end()
    }
    res.on('close', () => (endlessClosed = true))
    pump()
  })
  endlessOrigin = await listen(endless)
  // a valid discovery document and keys, reached only by a redirect from the issuer
  target = createServer((req, res) => {
    if (req.url === '/metadata') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: redirectingOrigin, jwks_uri: `${targetOrigin}/jwks` }))
    else if (req.url === '/jwks') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }))
    else res.writeHead(404).end()
  })
  targetOrigin = await listen(target)
  redirecting = createServer((_req, res) => res.writeHead(302, { location: `${targetOrigin}/metadata` }).end())
  redirectingOrigin = await listen(redirecting)
  rotating = createServer((_req, res) => {
    rotatingHits += 1
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }))
  })
  rotatingOrigin = await listen(rotating)
  const subjects = { job: { client: 'job' } }
  stack = await startProtectedStack({
    as: {
      observer: new Observer({ log }),
      clients: [{ client_id: 'job', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER_GRANT], response_types: [], redirect_uris: [], scope: 'mcp' }],
      jwtBearer: {
        issuers: [
          { issuer: 'https://endless.example', jwksUri: `${endlessOrigin}/jwks`, allowPrivateAddresses: true, subjects },
          { issuer: redirectingOrigin, allowPrivateAddresses: true, subjects },
          { issuer: 'https://rotating.example', jwksUri: `${rotatingOrigin}/jwks`, allowPrivateAddresses: true, subjects },
        ],
      },
    },
  })
})
afterAll(async () => {
  await stack?.stop()
  for (const server of [endless, target, redirecting, rotating]) server?.close()
})

function assertion(issuer: string, kid = 'k1'): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ sub: 'job', aud: stack.origin, jti: randomUUID(), iat: now, exp: now + 300 }).setProtectedHeader({ alg: 'ES256', kid }).setIssuer(issuer).sign(key)
}

async function grant(jwt: string) {
  const began = Date.now()
  const response = await fetch(`${stack.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: jwt, client_id: 'job' }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, string>, ms: Date.now() - began }
}

describe("a trusted issuer's keys and discovery, fetched through the outbound fetch", () => {
  it('cuts an endless JWKS at the body cap: refused quickly, memory bounded', async () => {
    const rss = process.memoryUsage.rss()
    const answer = await grant(await assertion('https://endless.example'))
    expect(answer.status).toBe(400)
    expect(answer.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/issuer https:\/\/endless\.example is unavailable/) })
    expect(answer.ms).toBeLessThan(2_000)
    expect(process.memoryUsage.rss() - rss).toBeLessThan(100 * 1024 * 1024)
    await expect.poll(() => endlessClosed).toBe(true)
    // what the server pushed before the connection closed: the cap plus socket buffers, not 400 MB
    expect(endlessWritten).toBeLessThan(32 * 1024 * 1024)
    expect(logged.join('')).toMatch(new RegExp(`longer than ${defaults.outbound.maxBytes} bytes`))
  })

  it('does not follow a redirect from the discovery document', async () => {
    const answer = await grant(await assertion(redirectingOrigin))
    expect(answer.status).toBe(400)
    expect(answer.body['error_description']).toBe(`the assertion's issuer ${redirectingOrigin} is unavailable right now (its metadata or keys cannot be fetched); try again later`)
    expect(logged.join('')).toMatch(/answered 302 redirecting to .*: redirects are not followed/)
  })

  it('fetches the keys again on an unknown kid at most once per cooldown', async () => {
    expect((await grant(await assertion('https://rotating.example'))).status).toBe(200)
    expect(rotatingHits).toBe(1)
    for (const kid of ['k2', 'k3', 'k4']) {
      const answer = await grant(await assertion('https://rotating.example', kid))
      expect(answer.body['error_description']).toBe('the assertion signature does not verify with its issuer keys')
    }
    expect(rotatingHits).toBe(1)
  })

  it('refuses at start an issuer on a private or loopback address unless allowPrivateAddresses says so', async () => {
    const subjects = { job: { client: 'job' } }
    for (const issuer of [
      { issuer: 'https://ci.example', jwksUri: `${rotatingOrigin}/jwks`, subjects },
      { issuer: 'http://localhost:1', subjects },
      { issuer: 'https://10.1.2.3', subjects },
    ]) {
      await expect(createAuthorizationServer({ jwtBearer: { issuers: [issuer] } }), issuer.issuer).rejects.toThrow(
        /jwtBearer\.issuers\.0\.allowPrivateAddresses: its keys or discovery are on a private or loopback address: set allowPrivateAddresses: true for an internal issuer/,
      )
    }
  })
})
