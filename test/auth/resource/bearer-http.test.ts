import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SignJWT, generateKeyPair, importJWK, type JWK } from 'jose'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

let stack: ProtectedStack
let clientId: string
let basic: string
let signingKey: Awaited<ReturnType<typeof importJWK>>
let signingKid: string

beforeAll(async () => {
  stack = await startProtectedStack()
  const added = await stack.as.addClient({
    client_name: 'machine',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'mcp mcp:admin',
  })
  clientId = added.client_id
  basic = `Basic ${Buffer.from(`${encodeURIComponent(added.client_id)}:${encodeURIComponent(added.client_secret!)}`).toString('base64')}`
  // The authorization server's own ES256 key, to forge tokens that differ in one claim only.
  const jwks = JSON.parse(await readFile(join(stack.dataDir, 'jwks.json'), 'utf8')) as { current: Array<JWK & { kid: string; alg: string }> }
  const es256 = jwks.current.find((key) => key.alg === 'ES256')!
  signingKey = await importJWK(es256, 'ES256')
  signingKid = es256.kid
})
afterAll(() => stack.stop())

async function token(scope = 'mcp', resource = `${stack.origin}/mcp`): Promise<string> {
  const response = await fetch(`${stack.origin}/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
  })
  const body = (await response.json()) as { access_token: string }
  expect(response.status).toBe(200)
  return body.access_token
}

function forge(claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ client_id: clientId, scope: 'mcp', ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signingKid, ...header })
    .setIssuer(stack.as.issuer)
    .setAudience(stack.resource)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .setSubject('someone')
}

const CALL = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }

async function call(authorization: string | undefined, message: unknown = CALL, path = '/mcp', extraHeaders: Record<string, string> = {}) {
  const response = await fetch(`${stack.origin}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(authorization ? { authorization } : {}),
      ...extraHeaders,
    },
    body: JSON.stringify(message),
  })
  return { status: response.status, challenge: response.headers.get('www-authenticate'), headers: response.headers, text: await response.text() }
}

const metadataUrl = () => `${stack.origin}/.well-known/oauth-protected-resource/mcp`

describe('the bearer check on a protected MCP endpoint', () => {
  it('answers 401 with a resource_metadata challenge and no error code when no token is sent', async () => {
    const { status, challenge, text } = await call(undefined)
    expect(status).toBe(401)
    expect(challenge).toBe(`Bearer resource_metadata="${metadataUrl()}", scope="mcp"`)
    // the body says what the challenge says: no error code, a description
    expect(JSON.parse(text)).toEqual({ error_description: 'this resource needs an access token in the Authorization header' })
  })

  it('lets a valid token through and hands the identity to the tool', async () => {
    const { status, text } = await call(`Bearer ${await token()}`, CALL, '/rest')
    expect(status).toBe(200)
    const identity = JSON.parse(JSON.parse(text).result.content[0].text)
    expect(identity).toMatchObject({ clientId, scopes: ['mcp'] })
  })

  it.each([
    ['for another resource', () => token('mcp', `${stack.origin}/other`), 'the access token is for another resource'],
    ['from another issuer', () => forge().setIssuer('https://evil.example').sign(signingKey), 'untrusted issuer'],
    [
      'expired',
      () =>
        forge()
          .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
          .sign(signingKey),
      'has expired',
    ],
    [
      'not yet valid',
      () =>
        forge()
          .setNotBefore(Math.floor(Date.now() / 1000) + 600)
          .sign(signingKey),
      'not valid yet',
    ],
    ['of another typ', () => forge({}, { typ: 'JWT' }).sign(signingKey), 'not an access token'],
    [
      'with a tampered payload',
      async () => {
        const [h, p, s] = (await forge().sign(signingKey)).split('.')
        const payload = JSON.parse(Buffer.from(p!, 'base64url').toString())
        payload.scope = 'mcp mcp:admin'
        return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`
      },
      'signature is invalid',
    ],
    [
      'signed by an unknown key',
      async () => {
        const { privateKey } = await generateKeyPair('ES256')
        return forge({}, { kid: 'not-a-known-kid' }).sign(privateKey)
      },
      'unknown key',
    ],
    [
      'with alg none',
      async () => {
        const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')
        const now = Math.floor(Date.now() / 1000)
        const payload = Buffer.from(JSON.stringify({ iss: stack.as.issuer, aud: stack.resource, exp: now + 300, scope: 'mcp', client_id: clientId })).toString('base64url')
        return `${header}.${payload}.`
      },
      'algorithm',
    ],
  ])('refuses a token %s with 401 invalid_token', async (_label, make, description) => {
    const jwt = await (make as () => Promise<string>)()
    const { status, challenge, text } = await call(`Bearer ${jwt}`)
    expect(status).toBe(401)
    expect(challenge).toContain('Bearer error="invalid_token"')
    expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`)
    expect(JSON.parse(text).error_description).toContain(description)
  })

  it('refuses a token in the query string or a form body with 400 invalid_request', async () => {
    const jwt = await token()
    const query = await call(undefined, CALL, `/mcp?access_token=${jwt}`)
    expect(query.status).toBe(400)
    expect(query.challenge).toContain('error="invalid_request"')
    const form = await fetch(`${stack.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `access_token=${jwt}` })
    expect(form.status).toBe(400)
    expect(((await form.json()) as { error: string }).error).toBe('invalid_request')
  })

  it('answers 403 insufficient_scope naming the scope a tool needs, and lets the wider token through', async () => {
    const adminCall = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'admin_stats', arguments: {} } }
    const narrow = await call(`Bearer ${await token('mcp')}`, adminCall, '/rest')
    expect(narrow.status).toBe(403)
    expect(narrow.challenge).toContain('error="insufficient_scope"')
    expect(narrow.challenge).toContain('scope="mcp mcp:admin"')
    // /rest is an endpoint of its own: its challenge names its own metadata (issue 28, item 2)
    expect(narrow.challenge).toContain(`resource_metadata="${stack.origin}/.well-known/oauth-protected-resource/rest"`)
    const wide = await call(`Bearer ${await token('mcp mcp:admin')}`, adminCall, '/rest')
    expect(wide.status).toBe(200)
    expect(wide.text).toContain('uptimeSeconds')
  })

  it('checks tool scopes on 2026-07-28 requests too, and hands the verified principal to the tool', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
    const headers = (name: string) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name })
    const adminCall = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'admin_stats', arguments: {}, _meta: meta } }
    const narrow = await call(`Bearer ${await token('mcp')}`, adminCall, '/mcp', headers('admin_stats'))
    expect(narrow.status).toBe(403)
    expect(narrow.challenge).toContain('error="insufficient_scope"')
    const whoami = { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: meta } }
    const answer = await call(`Bearer ${await token('mcp')}`, whoami, '/mcp', headers('whoami'))
    expect(answer.status).toBe(200)
    const result = (JSON.parse(answer.text) as { result: { resultType: string; content: Array<{ text: string }> } }).result
    expect(result.resultType).toBe('complete')
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ clientId })
  })

  it('answers 403 insufficient_scope when the token lacks the endpoint scope', async () => {
    const jwt = await forge({ scope: 'profile' }).sign(signingKey)
    const { status, challenge } = await call(`Bearer ${jwt}`)
    expect(status).toBe(403)
    expect(challenge).toContain('scope="mcp"')
  })

  it('protects every transport: Streamable HTTP, legacy SSE and stateless JSON', async () => {
    for (const [path, method] of [
      ['/mcp', 'POST'],
      ['/sse', 'GET'],
      ['/messages', 'POST'],
      ['/rest', 'POST'],
    ] as const) {
      const response = await fetch(`${stack.origin}${path}`, { method, headers: { accept: 'text/event-stream, application/json' } })
      expect(response.status, path).toBe(401)
      expect(response.headers.get('www-authenticate'), path).toContain('resource_metadata=')
    }
  })

  it('answers CORS preflights and exposes the challenge and session headers to browsers', async () => {
    const preflight = await fetch(`${stack.origin}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization')
    const refused = await call(undefined, CALL, '/mcp', { origin: 'http://localhost:6274' })
    expect(refused.headers.get('access-control-expose-headers')).toContain('www-authenticate')
    expect(refused.headers.get('access-control-expose-headers')).toContain('mcp-session-id')
  })
})

describe('protected resource metadata (RFC 9728)', () => {
  it('is served path-aware and at the root, readable from any origin', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(`${stack.origin}${path}`)
      expect(response.status, path).toBe(200)
      expect(response.headers.get('access-control-allow-origin')).toBe('*')
      expect(await response.json()).toEqual({
        resource: `${stack.origin}/mcp`,
        authorization_servers: [stack.as.issuer],
        scopes_supported: ['mcp', 'mcp:admin'],
        bearer_methods_supported: ['header'],
        resource_name: 'test stack',
        // DPoP accepted by default for clients that use it (issue 17), not required
        dpop_signing_alg_values_supported: ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA'],
      })
    }
  })

  it('shares the origin with the authorization server metadata and default paths (2025-03-26 clients)', async () => {
    const metadata = (await (await fetch(`${stack.origin}/.well-known/oauth-authorization-server`)).json()) as { issuer: string; authorization_endpoint: string }
    expect(metadata.issuer).toBe(stack.origin)
    expect(metadata.authorization_endpoint).toBe(`${stack.origin}/authorize`)
  })
})
