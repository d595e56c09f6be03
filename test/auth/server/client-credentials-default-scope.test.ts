/**
 * Issue 28, item 6: a client_credentials request without `scope` gets the resource's default
 * scopes (capped by the client's registered scope), as an authorization request does, so the
 * token is one `/mcp` accepts instead of a token with no scope it refuses with 403.
 */
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

let stack: ProtectedStack

beforeAll(async () => {
  stack = await startProtectedStack()
})
afterAll(() => stack.stop())

async function machineToken(registered: Record<string, unknown>, form: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const client = await stack.as.addClient({
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    ...registered,
  })
  const response = await fetch(`${stack.origin}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret!)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: stack.resource, ...form }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

async function toolsList(token: string): Promise<number> {
  const response = await fetch(stack.resource, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  })
  await response.body?.cancel()
  return response.status
}

describe('a client_credentials request without scope', () => {
  it("gets the resource's default scopes, and /mcp accepts the token", async () => {
    const { status, body } = await machineToken({})
    expect(status).toBe(200)
    expect(body['scope']).toBe('mcp')
    expect(decodeJwt(String(body['access_token']))['scope']).toBe('mcp')
    expect(await toolsList(String(body['access_token']))).toBe(200)
  })

  it('gets the default scopes within what the client registered', async () => {
    const { body } = await machineToken({ scope: 'mcp mcp:admin' })
    expect(body['scope']).toBe('mcp')
    const admin = await machineToken({ scope: 'mcp:admin' })
    // none of the default scopes is registered: everything it may have, never a token without scope
    expect(admin.status).toBe(200)
    expect(admin.body['scope']).toBe('mcp:admin')
  })

  it('still gets exactly what it asks for when it names a scope', async () => {
    const { body } = await machineToken({ scope: 'mcp mcp:admin' }, { scope: 'mcp:admin' })
    expect(body['scope']).toBe('mcp:admin')
  })
})
