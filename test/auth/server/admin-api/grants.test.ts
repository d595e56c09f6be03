// Issue 32: grants in the admin API — all of them a page at a time, of an account, of a client,
// and the end of one (its tokens refused at once), with every refusal.
import * as oidc from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProtectedStack, type ProtectedStack } from '../../../helpers/protected-stack.js'
import { adminCall, adminToken } from '../../../helpers/admin-api.js'
import { formLogin } from '../../../helpers/form-login.js'
import { pkcePair } from '../../../helpers/pkce-pair.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const REDIRECT = 'http://127.0.0.1:9/callback'
const root = { username: 'root', password: 'root password 1' }
const demo = { username: 'demo', password: 'demo password 1' }
const bea = { username: 'bea', password: 'bea password 1' }

let stack: ProtectedStack
let token: string
/** Three grants: demo with app one and app two, bea with app one. */
let one: { clientId: string; demo: oidc.TokenEndpointResponse; bea: oidc.TokenEndpointResponse }
let two: { clientId: string; demo: oidc.TokenEndpointResponse }

beforeAll(async () => {
  stack = await startProtectedStack()
  await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  await stack.as.accounts.setUser(bea.username, bea.password, { name: 'Bea' }, ['mcp'])
  token = (await adminToken(stack.origin, root)).access_token
  const first = await register('App one')
  const second = await register('App two')
  one = { clientId: first.clientMetadata().client_id, demo: await authorize(first, demo), bea: await authorize(first, bea) }
  two = { clientId: second.clientMetadata().client_id, demo: await authorize(second, demo) }
})
afterAll(() => stack.stop())

function register(clientName: string): Promise<oidc.Configuration> {
  return oidc.dynamicClientRegistration(new URL(stack.origin), { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: clientName }, oidc.None(), insecure)
}

async function authorize(config: oidc.Configuration, who: { username: string; password: string }): Promise<oidc.TokenEndpointResponse> {
  const { verifier, challenge } = await pkcePair()
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'mcp', resource: stack.resource, code_challenge: challenge, code_challenge_method: 'S256' })
  const { callback } = await formLogin(url, { ...who, redirectUri: REDIRECT })
  return oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, { resource: stack.resource })
}

async function mcpStatus(accessToken: string): Promise<number> {
  const response = await fetch(stack.resource, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  })
  await response.body?.cancel()
  return response.status
}

type Grant = { grant_id: string; username: string; client_id: string; client_name?: string; resources: Record<string, string> }
const pairs = (items: Grant[]): string[] => items.map((grant) => `${grant.username} ${grant.client_name}`).sort()
const apps = (items: Grant[]): Grant[] => items.filter((grant) => grant.client_id === one.clientId || grant.client_id === two.clientId)

describe('admin API: grants, refusals', () => {
  it('refuses a request without a token, and a token for another resource', async () => {
    expect((await adminCall(stack.origin, undefined, 'GET', '/grants')).status).toBe(401)
    const answer = await adminCall(stack.origin, one.demo.access_token, 'GET', '/grants')
    expect(answer.status).toBe(401)
    expect(answer.body.type).toBe('urn:mcp-auth:admin:unauthenticated')
  })

  it('answers 404 for an unknown account, client or grant', async () => {
    for (const [method, path] of [
      ['GET', '/accounts/nobody/grants'],
      ['GET', '/grants?username=nobody'],
      ['GET', '/clients/nobody/grants'],
      ['DELETE', '/grants/no-such-grant'],
    ] as const) {
      const answer = await adminCall(stack.origin, token, method, path)
      expect(answer.status, `${method} ${path}`).toBe(404)
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    }
  })

  it('refuses a limit the document does not allow', async () => {
    expect((await adminCall(stack.origin, token, 'GET', '/grants?limit=0')).status).toBe(400)
    expect((await adminCall(stack.origin, token, 'GET', '/grants?cursor=bogus')).status).toBe(400)
  })
})

describe('admin API: grants', () => {
  it('lists every grant with who, which client and what', async () => {
    const answer = await adminCall(stack.origin, token, 'GET', '/grants')
    expect(answer.status).toBe(200)
    expect(pairs(apps(answer.body.items))).toEqual(['bea App one', 'demo App one', 'demo App two'])
    const grant = answer.body.items.find((item: Grant) => item.username === 'bea')
    expect(grant).toMatchObject({ client_id: one.clientId, resources: { [stack.resource]: 'mcp' } })
    expect(Date.parse(grant.created_at)).toBeLessThanOrEqual(Date.now())
    expect(Date.parse(grant.expires_at)).toBeGreaterThan(Date.now())
  })

  it('lists an account’s grants and a client’s grants', async () => {
    const ofDemo = await adminCall(stack.origin, token, 'GET', '/accounts/demo/grants')
    expect(pairs(apps(ofDemo.body.items))).toEqual(['demo App one', 'demo App two'])
    const ofOne = await adminCall(stack.origin, token, 'GET', `/clients/${encodeURIComponent(one.clientId)}/grants`)
    expect(pairs(ofOne.body.items)).toEqual(['bea App one', 'demo App one'])
    const both = await adminCall(stack.origin, token, 'GET', `/grants?username=demo&client_id=${encodeURIComponent(two.clientId)}`)
    expect(pairs(both.body.items)).toEqual(['demo App two'])
  })

  it('pages the grants with limit and cursor, each once', async () => {
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await adminCall(stack.origin, token, 'GET', `/grants?limit=1${cursor !== undefined ? `&cursor=${cursor}` : ''}`)
      expect(page.status).toBe(200)
      seen.push(...page.body.items.map((grant: Grant) => grant.grant_id))
      cursor = page.body.next_cursor
      pages += 1
    } while (cursor !== undefined)
    expect(pages).toBeGreaterThan(1)
    expect(new Set(seen).size).toBe(seen.length)
    const all = await adminCall(stack.origin, token, 'GET', '/grants?limit=500')
    expect(seen.sort()).toEqual(all.body.items.map((grant: Grant) => grant.grant_id).sort())
  })

  it('ends a grant: its tokens are refused at once, the others keep working', async () => {
    const ofBea = await adminCall(stack.origin, token, 'GET', '/accounts/bea/grants')
    expect(ofBea.body.items).toHaveLength(1)
    expect(await mcpStatus(one.bea.access_token)).toBe(200)
    const revoked = await adminCall(stack.origin, token, 'DELETE', `/grants/${encodeURIComponent(ofBea.body.items[0].grant_id)}`)
    expect(revoked.status).toBe(204)
    expect(await mcpStatus(one.bea.access_token)).toBe(401)
    expect(await mcpStatus(one.demo.access_token)).toBe(200)
    expect((await adminCall(stack.origin, token, 'GET', '/accounts/bea/grants')).body.items).toEqual([])
    expect((await adminCall(stack.origin, token, 'DELETE', `/grants/${encodeURIComponent(ofBea.body.items[0].grant_id)}`)).status).toBe(404)
  })
})
