/**
 * Issue 28, item 7: docs/machine-clients.md's configuration with `jwksUri`, pasted as written
 * (only its URLs made local, and `allowPrivateAddresses` set as the page says for an issuer on
 * 127.0.0.1), works against a real issuer serving a JWKS, with the assertion the page's jose
 * snippet signs and the token request of its curl example. Every refusal says which check failed,
 * in its error_description and in one line of the server's log (no stack, no assertion): unknown
 * issuer, keys unreachable (down, or on a private address the entry does not allow), signature,
 * audience, expiry, replay.
 */
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose'
import { FetchedJwks } from '../../../src/auth/server/jwt-bearer/fetched-jwks.js'
import { verificationRefusal } from '../../../src/auth/server/jwt-bearer/verification-refusal.js'
import { outboundFetch } from '../../../src/net/outbound-fetch.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JWT_BEARER_GRANT } from '../../../src/auth/server/provider/jwt-bearer-grant.js'
import { Observer } from '../../../src/observe/observer.js'
import { memoryLog } from '../../helpers/memory-log.js'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

const DOC_ISSUER = 'https://platform.example.com'
let platform: Server
let platformOrigin: string
let platformKey: CryptoKey
let stack: ProtectedStack
let closedPort: string
// the server's log, where the grant says what it refused and why
const { log, messages: logged } = memoryLog()
let config: { clients: Array<Record<string, unknown>>; jwtBearer: { issuers: Array<Record<string, unknown>> } }

beforeAll(async () => {
  const doc = await readFile(new URL('../../../docs/machine-clients.md', import.meta.url), 'utf8')
  const block = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!).find((text) => text.includes('"jwksUri"'))
  expect(block, 'the page shows a configuration with jwksUri').toBeDefined()
  // a platform as the page describes it: its keys at /keys, exported as a platform does (with a kid)
  const pair = await generateKeyPair('ES256')
  platformKey = pair.privateKey
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'platform-1', use: 'sig' }] }
  platform = createServer((req, res) => {
    if (req.url === '/keys') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks))
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve))
  platformOrigin = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`
  config = JSON.parse(block!.replaceAll(DOC_ISSUER, platformOrigin))
  for (const issuer of config.jwtBearer.issuers) issuer['allowPrivateAddresses'] = true
  // beside the page's issuer, one whose keys cannot be fetched (nothing listens there)
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  closedPort = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
  await new Promise((resolve) => closed.close(resolve))
  config.jwtBearer.issuers.push({
    issuer: 'https://down.example.com',
    jwksUri: `${closedPort}/keys`,
    allowPrivateAddresses: true,
    subjects: { 'system:serviceaccount:jobs:nightly': { client: 'nightly-job' } },
  })
  stack = await startProtectedStack({ as: { ...config, observer: new Observer({ log }) } as never })
  await stack.as.accounts.setUser('reports', 'reports password 1')
})
afterAll(async () => {
  await stack?.stop()
  platform?.close()
})

/** The page's jose snippet, with the stack's origin for http://localhost:4000. */
function docAssertion(sub = 'system:serviceaccount:jobs:nightly', claims: Record<string, unknown> = {}, key = platformKey, issuer = platformOrigin): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  // setIssuedAt() and setExpirationTime('5m') of the page, which a test's own claims may replace
  return new SignJWT({ sub, aud: stack.origin, jti: randomUUID(), iat: now, exp: now + 300, ...claims }).setProtectedHeader({ alg: 'ES256' }).setIssuer(issuer).sign(key)
}

/** The page's curl example. */
async function docTokenRequest(assertion: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${stack.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, client_id: 'nightly-job', assertion, resource: `${stack.origin}/mcp`, scope: 'mcp' }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe("docs/machine-clients.md's jwksUri configuration", () => {
  it('gives the nightly job a token, as the page shows', async () => {
    const answer = await docTokenRequest(await docAssertion())
    expect(answer.body).toMatchObject({ token_type: 'Bearer', scope: 'mcp' })
    expect(answer.status).toBe(200)
  })

  it('gives a token for the account the report job maps to', async () => {
    const answer = await docTokenRequest(await docAssertion('system:serviceaccount:jobs:report'))
    expect(answer.body).toMatchObject({ token_type: 'Bearer', scope: 'mcp' })
  })
})

describe('a refused assertion', () => {
  it('says which check failed, to the client and in one line of the server log', async () => {
    const other = (await generateKeyPair('ES256')).privateKey
    const now = Math.floor(Date.now() / 1000)
    const nightly = 'system:serviceaccount:jobs:nightly'
    const replayed = await docAssertion()
    expect((await docTokenRequest(replayed)).status).toBe(200)
    const cases: Array<[string, string, RegExp]> = [
      ['unknown issuer', await docAssertion(nightly, {}, platformKey, 'https://evil.example.com'), /issuer this server does not trust/],
      [
        'keys unreachable',
        await docAssertion(nightly, {}, platformKey, 'https://down.example.com'),
        /issuer https:\/\/down\.example\.com is unavailable right now.*try again later/,
      ],
      ['signature', await docAssertion(nightly, {}, other), /signature does not verify/],
      ['audience', await docAssertion(nightly, { aud: 'https://elsewhere.example.com' }), /another audience/],
      ['expiry', await docAssertion(nightly, { iat: now - 600, exp: now - 120 }), /has expired/],
      ['replay', replayed, /already used \(jti\)/],
    ]
    for (const [check, assertion, says] of cases) {
      const before = logged.length
      const answer = await docTokenRequest(assertion)
      expect(answer.status, check).toBe(400)
      expect(answer.body['error'], check).toBe('invalid_grant')
      expect(String(answer.body['error_description']), check).toMatch(says)
      const lines = logged
        .slice(before)
        .join('')
        .split('\n')
        .filter((line) => line.includes('JWT bearer assertion refused'))
      expect(lines, check).toHaveLength(1)
      expect(lines[0], check).toMatch(says)
      expect(lines[0], check).toContain('nightly-job')
      expect(lines[0], check).not.toContain(assertion)
      expect(lines[0], check).not.toContain(assertion.split('.')[2]!)
      expect(logged.slice(before).join(''), check).not.toMatch(/\n\s+at /)
    }
    // the log of the unreachable keys says what failed in the fetch
    expect(logged.join('')).toMatch(/refused for client nightly-job from issuer https:\/\/down\.example\.com: invalid_grant: .*\(trusted issuer .*keys could not be fetched/)
  })

  it('names allowPrivateAddresses when the keys are on a private address the entry does not allow', async () => {
    const jwks = new FetchedJwks(
      'https://internal.example.com',
      `${platformOrigin}/keys`,
      outboundFetch({ configuredBy: 'operator', allowPrivateAddresses: false, setting: 'jwtBearer.issuers[0].allowPrivateAddresses' }),
      () => undefined,
    )
    const error = await Promise.resolve(jwks.getKey({ alg: 'ES256' }, { payload: '', signature: '' } as never)).catch((failure: unknown) => failure)
    const refusal = verificationRefusal(error)
    expect(refusal.description).toMatch(/private or loopback address.*allowPrivateAddresses: true/)
    expect(refusal.description).not.toMatch(/try again later/)
    expect(refusal.detail).toMatch(/jwtBearer\.issuers\[0\]\.allowPrivateAddresses/)
  })
})
