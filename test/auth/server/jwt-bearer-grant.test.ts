/**
 * Issue 17: the JWT bearer grant (RFC 7523 §2.1) at our authorization server — a workload's JWT
 * from a trusted issuer becomes an access token for the client (or account) its subject maps to —
 * and every refusal: unknown issuer, wrong audience, expired, too long-lived, replayed jti, bad
 * signature, unmapped subject, another client's subject, scope beyond policy. Then our
 * JwtBearerAuth client calls a tool on the protected demo server with it.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JwtBearerAuth, JWT_BEARER_GRANT } from '../../../src/auth/client/jwt-bearer-auth.js'
import { McpOAuthError } from '../../../src/auth/client/mcp-oauth-error.js'
import { McpClient } from '../../../src/client/index.js'
import { StreamableHttpClientTransport } from '../../../src/transports/http-client/index.js'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

const CI = 'https://ci.example.com'
const DISCOVERED = 'discovered'
let ciKey: CryptoKey
let discoveredKey: CryptoKey
let idp: Server
let idpOrigin: string
let stack: ProtectedStack
let dir: string

beforeAll(async () => {
  const ci = await generateKeyPair('ES256')
  ciKey = ci.privateKey
  const other = await generateKeyPair('ES256')
  discoveredKey = other.privateKey
  const discoveredJwks = { keys: [{ ...(await exportJWK(other.publicKey)), kid: 'd1', alg: 'ES256' }] }
  // an identity provider known by its discovery document only
  idp = createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration')
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: idpOrigin, jwks_uri: `${idpOrigin}/jwks` }))
    else if (req.url === '/jwks') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(discoveredJwks))
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve))
  idpOrigin = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`
  stack = await startProtectedStack({
    as: {
      clients: [
        { client_id: 'deployer', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER_GRANT], response_types: [], redirect_uris: [], scope: 'mcp' },
        { client_id: 'reporter', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER_GRANT], response_types: [], redirect_uris: [], scope: 'mcp' },
      ],
      jwtBearer: {
        issuers: [
          {
            issuer: CI,
            jwks: { keys: [{ ...(await exportJWK(ci.publicKey)), kty: 'EC', kid: 'ci1', alg: 'ES256' }] },
            subjects: { 'repo:acme/app:ref:main': { client: 'deployer' }, 'job:nightly': { account: 'demo' } },
          },
          { issuer: idpOrigin, allowPrivateAddresses: true, subjects: { [DISCOVERED]: { client: 'reporter' } } },
        ],
      },
    },
  })
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-jwt-bearer-'))
})
afterAll(async () => {
  await stack.stop()
  idp.close()
  await rm(dir, { recursive: true, force: true })
})

function assertion(claims: Record<string, unknown> = {}, key: CryptoKey = ciKey, issuer = CI): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ sub: 'repo:acme/app:ref:main', aud: stack.origin, jti: randomUUID(), iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(issuer)
    .sign(key)
}

async function grant(jwt: string, extra: Record<string, string> = {}, clientId = 'deployer') {
  const response = await fetch(`${stack.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: jwt, client_id: clientId, resource: `${stack.origin}/mcp`, ...extra }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, string> }
}

describe('the JWT bearer grant at our authorization server', () => {
  it('lists the grant in its metadata', async () => {
    const metadata = (await (await fetch(`${stack.origin}/.well-known/oauth-authorization-server`)).json()) as { grant_types_supported: string[] }
    expect(metadata.grant_types_supported).toContain(JWT_BEARER_GRANT)
  })

  it("gives the mapped client a token for the resource, with the client's scope", async () => {
    const answer = await grant(await assertion())
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ token_type: 'Bearer', scope: 'mcp' })
    const claims = decodeJwt(answer.body['access_token']!)
    expect(claims).toMatchObject({ client_id: 'deployer', aud: `${stack.origin}/mcp`, scope: 'mcp' })
  })

  it('accepts our token endpoint URL as the audience too', async () => {
    expect((await grant(await assertion({ aud: `${stack.origin}/token` }))).status).toBe(200)
  })

  it('gives a token for the account a subject maps to', async () => {
    const answer = await grant(await assertion({ sub: 'job:nightly' }))
    expect(answer.status).toBe(200)
    const account = await stack.as.accounts.findByUsername('demo')
    expect(decodeJwt(answer.body['access_token']!)).toMatchObject({ sub: account!.id, client_id: 'deployer' })
  })

  it('verifies an issuer known by its discovery document', async () => {
    const answer = await grant(await assertion({ sub: DISCOVERED }, discoveredKey, idpOrigin), {}, 'reporter')
    expect(answer.status).toBe(200)
  })

  it('refuses an unknown issuer, another audience, an expired or too long-lived assertion, and a bad signature', async () => {
    const now = Math.floor(Date.now() / 1000)
    const cases: Array<[string, Promise<string>, RegExp]> = [
      ['unknown issuer', assertion({}, ciKey, 'https://evil.example.com'), /issuer this server does not trust/],
      ['another audience', assertion({ aud: 'https://other.example.com' }), /another audience/],
      ['expired', assertion({ iat: now - 600, exp: now - 120 }), /expired/],
      ['too long-lived', assertion({ exp: now + 7200 }), /lives longer than 3600 seconds/],
      ['bad signature', assertion({}, discoveredKey), /signature does not verify/],
      ['no jti', assertion({ jti: undefined }), /jti/],
      ['unmapped subject', assertion({ sub: 'repo:evil/app' }), /not mapped/],
    ]
    for (const [what, jwt, says] of cases) {
      const answer = await grant(await jwt)
      expect(answer.status, what).toBe(400)
      expect(answer.body['error'], what).toBe('invalid_grant')
      expect(answer.body['error_description'], what).toMatch(says)
    }
  })

  it('refuses an assertion used twice', async () => {
    const once = await assertion()
    expect((await grant(once)).status).toBe(200)
    const again = await grant(once)
    expect(again.body).toMatchObject({ error: 'invalid_grant', error_description: 'the assertion was already used (jti)' })
  })

  it("refuses another client's subject, and a scope beyond policy", async () => {
    const other = await grant(await assertion(), {}, 'reporter')
    expect(other.status).toBe(400)
    expect(other.body['error']).toBe('unauthorized_client')
    const once = await assertion()
    const wider = await grant(once, { scope: 'mcp mcp:admin' })
    expect(wider.body['error']).toBe('invalid_scope')
    // a refused request does not use the assertion up
    expect((await grant(once, { scope: 'mcp' })).status).toBe(200)
  })
})

describe('JwtBearerAuth', () => {
  it('calls a tool with a token from the assertion file, read again for each new token', async () => {
    const file = join(dir, 'assertion.jwt')
    await writeFile(file, `${await assertion()}\n`)
    const auth = new JwtBearerAuth(`${stack.origin}/mcp`, { clientId: 'deployer', assertionFile: file })
    const client = new McpClient({ name: 'workload', version: '1' })
    await client.connect(new StreamableHttpClientTransport(`${stack.origin}/mcp`, { fetch: auth.fetch }))
    try {
      const result = await client.callTool('whoami', {})
      expect(JSON.stringify(result)).toContain('deployer')
    } finally {
      await client.close()
    }
  })

  it('surfaces a refused assertion with the server words, once, without retrying', async () => {
    let asked = 0
    const auth = new JwtBearerAuth(`${stack.origin}/mcp`, {
      clientId: 'deployer',
      assertion: async () => {
        asked++
        return assertion({ aud: 'https://other.example.com' })
      },
    })
    const client = new McpClient({ name: 'workload', version: '1' })
    const error = await client.connect(new StreamableHttpClientTransport(`${stack.origin}/mcp`, { fetch: auth.fetch })).catch((e: unknown) => e)
    await client.close()
    expect(JSON.stringify(String(error))).toContain('invalid_grant')
    expect(asked).toBe(1)
  })

  it('takes exactly one assertion source, and reads one from the environment', async () => {
    expect(() => new JwtBearerAuth(`${stack.origin}/mcp`, {})).toThrow(/exactly one/)
    expect(() => new JwtBearerAuth(`${stack.origin}/mcp`, { assertion: 'x', assertionEnv: 'Y' })).toThrow(/exactly one/)
    process.env['MCP_AUTH_TEST_ASSERTION'] = ''
    const auth = new JwtBearerAuth(`${stack.origin}/mcp`, { clientId: 'deployer', assertionEnv: 'MCP_AUTH_TEST_ASSERTION' })
    const refused = await auth.fetch(`${stack.origin}/mcp`, { method: 'POST', body: '{}' }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(McpOAuthError)
    expect((refused as Error).message).toContain('$MCP_AUTH_TEST_ASSERTION')
    delete process.env['MCP_AUTH_TEST_ASSERTION']
  })
})
