// Issue 32: clients in the admin API — origin and last use, registration (a machine administrator
// among them), removal, block and unblock (no authorization, no token, grants ended), and every refusal.
import * as oidc from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProtectedStack, type ProtectedStack } from '../../../helpers/protected-stack.js'
import { adminApiUrl, adminCall, adminToken } from '../../../helpers/admin-api.js'
import { formLogin } from '../../../helpers/form-login.js'
import { pkcePair } from '../../../helpers/pkce-pair.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const REDIRECT = 'http://127.0.0.1:9/callback'
const root = { username: 'root', password: 'root password 1' }
const demo = { username: 'demo', password: 'demo password 1' }

let stack: ProtectedStack
let token: string

beforeAll(async () => {
  stack = await startProtectedStack({
    as: {
      clients: [{ client_id: 'configured-app', client_name: 'Configured app', token_endpoint_auth_method: 'none', redirect_uris: [REDIRECT], response_types: ['code'] }],
    },
  })
  await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  token = (await adminToken(stack.origin, root)).access_token
})
afterAll(() => stack.stop())

/** A public client registered by DCR that signs `who` in for the demo MCP resource: its tokens. */
async function appLogin(who = demo, clientName = 'An app'): Promise<{ config: oidc.Configuration; tokens: oidc.TokenEndpointResponse }> {
  const config = await oidc.dynamicClientRegistration(
    new URL(stack.origin),
    { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: clientName, grant_types: ['authorization_code', 'refresh_token'] },
    oidc.None(),
    insecure,
  )
  const tokens = await authorize(config, who)
  return { config, tokens }
}

async function authorize(config: oidc.Configuration, who: { username: string; password: string }): Promise<oidc.TokenEndpointResponse> {
  const { verifier, challenge } = await pkcePair()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'mcp offline_access',
    prompt: 'consent',
    resource: stack.resource,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })
  const { callback } = await formLogin(url, { ...who, redirectUri: REDIRECT })
  return oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, { resource: stack.resource })
}

/** A client_credentials token request, answered raw. */
async function clientCredentials(clientId: string, secret: string, resource: string, scope?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${stack.origin}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, ...(scope !== undefined ? { scope } : {}) }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** The MCP resource's answer to a bearer token (an initialize request). */
async function mcpStatus(accessToken: string): Promise<number> {
  const response = await fetch(stack.resource, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  })
  await response.body?.cancel()
  return response.status
}

describe('admin API: clients, refusals', () => {
  it('refuses a request without a token', async () => {
    const answer = await adminCall(stack.origin, undefined, 'GET', '/clients')
    expect(answer.status).toBe(401)
    expect(answer.body.type).toBe('urn:mcp-auth:admin:unauthenticated')
  })

  it('refuses a token for another resource (the MCP server)', async () => {
    const { tokens } = await appLogin()
    const answer = await adminCall(stack.origin, tokens.access_token, 'GET', '/clients')
    expect(answer.status).toBe(401)
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  })

  it('never grants an ordinary account the admin scope: refused at consent', async () => {
    await expect(adminToken(stack.origin, demo)).rejects.toThrow(/access_denied the account may not be granted any of the requested scopes/)
  })

  it('answers 404 for an unknown client, 409 for removing a configured one', async () => {
    for (const [method, path] of [
      ['GET', '/clients/nobody'],
      ['DELETE', '/clients/nobody'],
      ['POST', '/clients/nobody/block'],
      ['DELETE', '/clients/nobody/block'],
      ['GET', '/clients/nobody/grants'],
    ] as const) {
      const answer = await adminCall(stack.origin, token, method, path)
      expect(answer.status, `${method} ${path}`).toBe(404)
      expect(answer.body.type).toBe('urn:mcp-auth:admin:not-found')
    }
    const removed = await adminCall(stack.origin, token, 'DELETE', '/clients/configured-app')
    expect(removed.status).toBe(409)
    expect(removed.body.detail).toContain('configuration')
  })

  it('refuses metadata oidc-provider refuses, and fields the document does not describe', async () => {
    const bad = await adminCall(stack.origin, token, 'POST', '/clients', { client_name: 'x', redirect_uris: ['not a uri'] })
    expect(bad.status).toBe(400)
    const unknown = await adminCall(stack.origin, token, 'POST', '/clients', { client_name: 'x', mcp_auth_origin: 'configured' })
    expect(unknown.status).toBe(400)
    const invalid = await adminCall(stack.origin, token, 'POST', '/clients', { client_name: 'x', grant_types: ['implicit'], response_types: ['token'], redirect_uris: [REDIRECT] })
    expect(invalid.status).toBe(400)
    expect(invalid.body.detail).toMatch(/invalid client metadata/)
  })
})

describe('admin API: clients', () => {
  it('lists each client with its origin, and filters by origin and search', async () => {
    const { config } = await appLogin(demo, 'Listed app')
    const added = await adminCall(stack.origin, token, 'POST', '/clients', { client_name: 'Added app', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })
    expect(added.status).toBe(201)
    expect(added.body.client).toMatchObject({ client_name: 'Added app', origin: 'administrator', blocked: false, token_endpoint_auth_method: 'none' })
    expect(added.body.client_secret).toBeUndefined()
    const all = await adminCall(stack.origin, token, 'GET', '/clients')
    expect(all.status).toBe(200)
    const origins = new Map(all.body.items.map((client: { client_id: string; origin: string }) => [client.client_id, client.origin]))
    expect(origins.get('configured-app')).toBe('configured')
    // the server's own console, listed for what it is, neither removed nor blocked
    expect(origins.get('mcp-auth-console')).toBe('built-in')
    expect((await adminCall(stack.origin, token, 'POST', '/clients/mcp-auth-console/block')).status).toBe(409)
    expect((await adminCall(stack.origin, token, 'DELETE', '/clients/mcp-auth-console')).status).toBe(409)
    expect(origins.get(config.clientMetadata().client_id)).toBe('dynamic')
    expect(origins.get(added.body.client.client_id)).toBe('administrator')
    const configured = await adminCall(stack.origin, token, 'GET', '/clients?origin=configured')
    expect(configured.body.items.map((client: { client_id: string }) => client.client_id)).toEqual(['configured-app'])
    const searched = await adminCall(stack.origin, token, 'GET', '/clients?q=listed%20APP')
    expect(searched.body.items.map((client: { client_id: string }) => client.client_id)).toEqual([config.clientMetadata().client_id])
  })

  it('pages the list by client_id', async () => {
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await adminCall(stack.origin, token, 'GET', `/clients?limit=1${cursor !== undefined ? `&cursor=${cursor}` : ''}`)
      expect(page.status).toBe(200)
      expect(page.body.items.length).toBeLessThanOrEqual(1)
      seen.push(...page.body.items.map((client: { client_id: string }) => client.client_id))
      cursor = page.body.next_cursor
    } while (cursor !== undefined)
    const all = await adminCall(stack.origin, token, 'GET', `/clients?limit=500`)
    expect(seen).toEqual(all.body.items.map((client: { client_id: string }) => client.client_id))
    expect(seen.length).toBeGreaterThan(2)
  })

  it('says when a client was last used', async () => {
    const { config } = await appLogin(demo, 'Used app')
    const read = await adminCall(stack.origin, token, 'GET', `/clients/${encodeURIComponent(config.clientMetadata().client_id)}`)
    expect(read.status).toBe(200)
    expect(Date.now() - Date.parse(read.body.last_used_at)).toBeLessThan(60_000)
    expect(read.body.created_at).toBeTypeOf('string')
  })

  it('writes a last use once per hour, not once per token request', async () => {
    const created = await adminCall(stack.origin, token, 'POST', '/clients', {
      client_name: 'Busy worker',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'mcp',
    })
    const { client_id: clientId } = created.body.client
    expect(created.body.client.last_used_at).toBeUndefined()
    expect((await clientCredentials(clientId, created.body.client_secret, stack.resource)).status).toBe(200)
    const first = (await adminCall(stack.origin, token, 'GET', `/clients/${encodeURIComponent(clientId)}`)).body.last_used_at
    expect(first).toBeTypeOf('string')
    for (let i = 0; i < 20; i++) expect((await clientCredentials(clientId, created.body.client_secret, stack.resource)).status).toBe(200)
    // a write would have moved it
    expect((await adminCall(stack.origin, token, 'GET', `/clients/${encodeURIComponent(clientId)}`)).body.last_used_at).toBe(first)
  })

  it('removes a client and ends its grants', async () => {
    const { config, tokens } = await appLogin(demo, 'Removed app')
    const clientId = config.clientMetadata().client_id
    expect(await mcpStatus(tokens.access_token)).toBe(200)
    const removed = await adminCall(stack.origin, token, 'DELETE', `/clients/${encodeURIComponent(clientId)}`)
    expect(removed.status).toBe(200)
    expect(removed.body.grants_ended).toBe(1)
    expect(await mcpStatus(tokens.access_token)).toBe(401)
    expect((await adminCall(stack.origin, token, 'GET', `/clients/${encodeURIComponent(clientId)}`)).status).toBe(404)
  })
})

describe('admin API: blocking a client', () => {
  it('ends its grants, refuses it at the token endpoint and at authorization, and lets it in again once unblocked', async () => {
    const { config, tokens } = await appLogin(demo, 'Blocked app')
    const clientId = config.clientMetadata().client_id
    const path = `/clients/${encodeURIComponent(clientId)}`
    expect((await adminCall(stack.origin, token, 'GET', `${path}/grants`)).body.items).toHaveLength(1)

    const blocked = await adminCall(stack.origin, token, 'POST', `${path}/block`)
    expect(blocked.status).toBe(200)
    expect(blocked.body).toMatchObject({ client: { client_id: clientId, blocked: true }, grants_ended: 1 })
    expect(blocked.body.client.blocked_at).toBeTypeOf('string')
    // its access token is refused at once (grant revoked), its refresh token with a reason
    expect(await mcpStatus(tokens.access_token)).toBe(401)
    const refresh = await fetch(`${stack.origin}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId }),
    })
    expect(refresh.status).toBe(400)
    expect(await refresh.json()).toMatchObject({ error: 'unauthorized_client', error_description: expect.stringContaining('blocked') })
    // a new authorization: an error page that says so, no redirect to the client
    const { challenge } = await pkcePair()
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'mcp', resource: stack.resource, code_challenge: challenge, code_challenge_method: 'S256' })
    const page = await fetch(url, { redirect: 'manual' })
    expect(page.status).toBe(400)
    expect(page.headers.get('location')).toBeNull()
    expect(await page.text()).toContain('blocked')
    const listed = await adminCall(stack.origin, token, 'GET', '/clients?blocked=true')
    expect(listed.body.items.map((client: { client_id: string }) => client.client_id)).toEqual([clientId])

    const unblocked = await adminCall(stack.origin, token, 'DELETE', `${path}/block`)
    expect(unblocked.status).toBe(200)
    expect(unblocked.body).toMatchObject({ client_id: clientId, blocked: false })
    // the grants that ended stay ended; a new sign-in works
    expect((await adminCall(stack.origin, token, 'GET', `${path}/grants`)).body.items).toHaveLength(0)
    const again = await authorize(config, demo)
    expect(await mcpStatus(again.access_token)).toBe(200)
  })

  it('refuses at once the client_credentials tokens it already holds, at the MCP resource in this process', async () => {
    const created = await adminCall(stack.origin, token, 'POST', '/clients', {
      client_name: 'Worker',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'mcp',
    })
    const { client_id: clientId } = created.body.client
    const issued = await clientCredentials(clientId, created.body.client_secret, stack.resource)
    expect(issued.status).toBe(200)
    const accessToken = issued.body['access_token'] as string
    expect(await mcpStatus(accessToken)).toBe(200)
    // a resource server in another process asks introspection: inactive while blocked too
    const server = await adminCall(stack.origin, token, 'POST', '/clients', {
      client_name: 'A resource server',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
    })
    const basic = Buffer.from(`${server.body.client.client_id}:${server.body.client_secret}`).toString('base64')
    const introspect = async (): Promise<unknown> => {
      const response = await fetch(`${stack.origin}/token/introspection`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
        body: new URLSearchParams({ token: accessToken }),
      })
      return ((await response.json()) as { active?: unknown }).active
    }
    expect(await introspect()).toBe(true)
    expect((await adminCall(stack.origin, token, 'POST', `/clients/${encodeURIComponent(clientId)}/block`)).body.grants_ended).toBe(0)
    expect(await mcpStatus(accessToken)).toBe(401)
    expect(await introspect()).toBe(false)
    expect((await adminCall(stack.origin, token, 'DELETE', `/clients/${encodeURIComponent(clientId)}/block`)).status).toBe(200)
    expect(await mcpStatus(accessToken)).toBe(200)
    expect(await introspect()).toBe(true)
  })

  it('blocks a configured client as well', async () => {
    const blocked = await adminCall(stack.origin, token, 'POST', '/clients/configured-app/block')
    expect(blocked.status).toBe(200)
    const { challenge } = await pkcePair()
    const page = await fetch(
      `${stack.origin}/authorize?${new URLSearchParams({ client_id: 'configured-app', response_type: 'code', redirect_uri: REDIRECT, scope: 'mcp', code_challenge: challenge, code_challenge_method: 'S256' })}`,
      { redirect: 'manual' },
    )
    expect(page.status).toBe(400)
    expect(await page.text()).toContain('blocked')
    expect((await adminCall(stack.origin, token, 'DELETE', '/clients/configured-app/block')).status).toBe(200)
    const allowed = await fetch(
      `${stack.origin}/authorize?${new URLSearchParams({ client_id: 'configured-app', response_type: 'code', redirect_uri: REDIRECT, scope: 'mcp', code_challenge: challenge, code_challenge_method: 'S256' })}`,
      { redirect: 'manual' },
    )
    expect(allowed.status).toBe(303)
  })

  it('blocks a client ID metadata document before its first visit: never fetched, listed as blocked', async () => {
    const clientId = 'https://app.example/oauth/client.json'
    const blocked = await adminCall(stack.origin, token, 'POST', `/clients/${encodeURIComponent(clientId)}/block`)
    expect(blocked.status).toBe(200)
    expect(blocked.body.client).toMatchObject({ client_id: clientId, origin: 'metadata-document', blocked: true })
    const listed = await adminCall(stack.origin, token, 'GET', '/clients?origin=metadata-document')
    expect(listed.body.items).toEqual([expect.objectContaining({ client_id: clientId, blocked: true })])
    const page = await fetch(
      `${stack.origin}/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: 'https://app.example/cb', scope: 'mcp' })}`,
      {
        redirect: 'manual',
      },
    )
    expect(page.status).toBe(400)
    expect(await page.text()).toContain('blocked')
  })
})

describe('admin API: a machine administrator', () => {
  it('is a client the API registers with the admin scope: its client_credentials token works on the API until it is blocked', async () => {
    const created = await adminCall(stack.origin, token, 'POST', '/clients', {
      client_name: 'Automation',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'mcp-auth:admin',
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toContain('/admin/api/clients/')
    const { client_id: clientId } = created.body.client
    const secret = created.body.client_secret as string
    expect(secret).toBeTypeOf('string')
    const issued = await clientCredentials(clientId, secret, adminApiUrl(stack.origin), 'mcp-auth:admin')
    expect(issued.status).toBe(200)
    const machineToken = issued.body['access_token'] as string
    const listed = await adminCall(stack.origin, machineToken, 'GET', '/clients?origin=administrator')
    expect(listed.status).toBe(200)
    expect(listed.body.items.map((client: { client_id: string }) => client.client_id)).toContain(clientId)

    expect((await adminCall(stack.origin, token, 'POST', `/clients/${encodeURIComponent(clientId)}/block`)).status).toBe(200)
    // its token is refused at once, as a revoked one
    const refused = await adminCall(stack.origin, machineToken, 'GET', '/clients')
    expect(refused.status).toBe(401)
    expect(refused.body.type).toBe('urn:mcp-auth:admin:unauthenticated')
    const again = await clientCredentials(clientId, secret, adminApiUrl(stack.origin), 'mcp-auth:admin')
    expect(again.status).toBe(400)
    expect(again.body).toMatchObject({ error: 'unauthorized_client', error_description: expect.stringContaining('blocked') })
  })

  it('is never made by open registration', async () => {
    const response = await fetch(`${stack.origin}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Self-made admin',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'mcp-auth:admin',
      }),
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: 'invalid_client_metadata' })
  })
})
