// Issue 13, item 10: a revoked grant reaches its JWT access tokens — introspection says inactive,
// a resource that asks (checkRevocation) refuses them, and mcp-auth start refuses them at once.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as oidc from 'openid-client'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'
import { formLogin } from '../../helpers/form-login.js'
import { createProtectedMcpApp } from '../../../src/app/protected-mcp-app.js'
import { createDemoServer } from '../../../src/demo/demo-server.js'
import { introspectionRevocationCheck } from '../../../src/auth/resource/revocation-check.js'
import { pkcePair } from '../../helpers/pkce-pair.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const REDIRECT = 'http://127.0.0.1/callback'

let stack: ProtectedStack
let introspector: { client_id: string; client_secret?: string }

beforeAll(async () => {
  stack = await startProtectedStack({ as: { refreshTokens: { reuseGraceSeconds: 0 } } })
  introspector = await stack.as.addClient({ client_name: 'resource server', grant_types: ['client_credentials'], response_types: [], redirect_uris: [] })
})
afterAll(() => stack.stop())

async function login(): Promise<{ config: oidc.Configuration; tokens: oidc.TokenEndpointResponse; callback: URL; verifier: string }> {
  const config = await oidc.dynamicClientRegistration(new URL(stack.origin), { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
  const { verifier, challenge } = await pkcePair()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'mcp',
    resource: stack.resource,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })
  const { callback } = await formLogin(url, { username: 'demo', password: 'demo password 1', redirectUri: REDIRECT })
  const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })
  return { config, tokens, callback, verifier }
}

async function introspect(token: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${stack.origin}/token/introspection`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${introspector.client_id}:${introspector.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token }),
  })
  return (await response.json()) as Record<string, unknown>
}

async function callTool(origin: string, token: string): Promise<number> {
  const response = await fetch(`${origin}/rest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }),
  })
  await response.text()
  return response.status
}

describe('introspection of JWT access tokens', () => {
  it('answers active with the claims for a token of a live grant', async () => {
    const { tokens } = await login()
    const answer = await introspect(tokens.access_token)
    expect(answer).toMatchObject({ active: true, iss: stack.origin, aud: stack.resource, scope: 'mcp', token_type: 'Bearer' })
    expect(answer['gid']).toBeUndefined()
    expect(await callTool(stack.origin, tokens.access_token)).toBe(200)
  })

  it('answers inactive once the grant is revoked by a code replay, and the MCP endpoint refuses the token at once', async () => {
    const { config, tokens, callback, verifier } = await login()
    expect(await callTool(stack.origin, tokens.access_token)).toBe(200)
    await expect(oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })).rejects.toMatchObject({ error: 'invalid_grant' })
    expect(await introspect(tokens.access_token)).toEqual({ active: false })
    expect(await callTool(stack.origin, tokens.access_token)).toBe(401)
  })

  it('refuses the JWTs of a grant ended by refresh-token reuse', async () => {
    const { config, tokens } = await login()
    const rotated = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' })
    for (const token of [tokens.access_token, rotated.access_token]) {
      expect((await introspect(token))['active']).toBe(false)
      expect(await callTool(stack.origin, token)).toBe(401)
    }
  })

  it('refuses the JWTs of a grant whose refresh token was revoked (RFC 7009)', async () => {
    const { config, tokens } = await login()
    await oidc.tokenRevocation(config, tokens.refresh_token!)
    expect(await callTool(stack.origin, tokens.access_token)).toBe(401)
  })

  it('lets a resource in another process refuse revoked JWTs through introspection (checkRevocation)', async () => {
    const app = createProtectedMcpApp(createDemoServer(), {
      host: '127.0.0.1',
      origin: stack.origin,
      issuer: stack.origin,
      requiredScopes: ['mcp'],
      checkRevocation: introspectionRevocationCheck({
        endpoint: `${stack.origin}/token/introspection`,
        clientId: introspector.client_id,
        clientSecret: introspector.client_secret!,
        audience: stack.resource,
        cacheMs: 0,
      }),
    })
    const server = createServer(app.handler)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const other = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const { config, tokens } = await login()
      expect(await callTool(other, tokens.access_token)).toBe(200)
      await oidc.tokenRevocation(config, tokens.refresh_token!)
      expect(await callTool(other, tokens.access_token)).toBe(401)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await app.close()
    }
  })
})
