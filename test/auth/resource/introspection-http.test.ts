import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

/** The MCP endpoint, verifying opaque tokens by introspection at our authorization server. */
let stack: ProtectedStack
let basic: string

beforeAll(async () => {
  stack = await startProtectedStack({ introspection: true })
  const caller = await stack.as.addClient({
    client_name: 'caller',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  })
  basic = `Basic ${Buffer.from(`${caller.client_id}:${caller.client_secret}`).toString('base64')}`
})
afterAll(() => stack.stop())

const call = (token: string) =>
  fetch(`${stack.origin}/rest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }),
  })

describe('a protected MCP endpoint with introspection', () => {
  it('accepts an opaque token, then refuses it with 401 invalid_token once revoked', async () => {
    const issued = await fetch(`${stack.origin}/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp' }),
    })
    const { access_token } = (await issued.json()) as { access_token: string }
    expect(access_token.includes('.')).toBe(false)
    expect((await call(access_token)).status).toBe(200)
    const revoked = await fetch(`${stack.origin}/token/revocation`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: access_token }),
    })
    expect(revoked.status).toBe(200)
    const refused = await call(access_token)
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect(((await refused.json()) as { error_description: string }).error_description).toContain('not active')
  })
})
