import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProtectedStack, type ProtectedStack } from '../../../helpers/protected-stack.js'
import { adminCall, adminToken } from '../../../helpers/admin-api.js'

let stack: ProtectedStack
let token: string
const root = { username: 'root', password: 'root password 1' }

beforeAll(async () => {
  stack = await startProtectedStack()
  await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  token = (await adminToken(stack.origin, root)).access_token
})
afterAll(() => stack.stop())

describe('admin API: accounts', () => {
  it('serves its OpenAPI document and protected resource metadata without a token', async () => {
    const document = await fetch(`${stack.origin}/admin/api/openapi.json`)
    expect(document.status).toBe(200)
    const parsed = (await document.json()) as { openapi: string; paths: Record<string, unknown> }
    expect(parsed.openapi).toBe('3.0.3')
    expect(Object.keys(parsed.paths)).toContain('/accounts/{username}')
    const metadata = (await (await fetch(`${stack.origin}/.well-known/oauth-protected-resource/admin/api`)).json()) as Record<string, unknown>
    expect(metadata).toMatchObject({ resource: `${stack.origin}/admin/api`, authorization_servers: [stack.origin], scopes_supported: ['mcp-auth:admin'] })
  })

  it('refuses a request without a token with a challenge naming the metadata, as problem details', async () => {
    const answer = await adminCall(stack.origin, undefined, 'GET', '/accounts')
    expect(answer.status).toBe(401)
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(answer.headers.get('www-authenticate')).toContain(`resource_metadata="${stack.origin}/.well-known/oauth-protected-resource/admin/api"`)
    expect(answer.body).toMatchObject({ type: 'urn:mcp-auth:admin:unauthenticated', status: 401 })
  })

  it('creates, reads, changes with If-Match, and deletes an account', async () => {
    const created = await adminCall(stack.origin, token, 'POST', '/accounts', { username: 'carol', password: 'carol password 1', name: 'Carol', scopes: ['mcp'] })
    expect(created.status).toBe(201)
    expect(created.body.account).toMatchObject({ username: 'carol', name: 'Carol', role: 'user', disabled: false, scopes: ['mcp'] })
    const read = await adminCall(stack.origin, token, 'GET', '/accounts/carol')
    expect(read.status).toBe(200)
    const etag = read.headers.get('etag')!
    const changed = await adminCall(stack.origin, token, 'PATCH', '/accounts/carol', { scopes: 'default', disabled: true }, { 'if-match': etag })
    expect(changed.status).toBe(200)
    expect(changed.body.disabled).toBe(true)
    expect(changed.body.scopes).toBeUndefined()
    const stale = await adminCall(stack.origin, token, 'PATCH', '/accounts/carol', { disabled: false }, { 'if-match': etag })
    expect(stale.status).toBe(412)
    expect(stale.body.type).toBe('urn:mcp-auth:admin:precondition-failed')
    const listed = await adminCall(stack.origin, token, 'GET', '/accounts?q=caro')
    expect(listed.body.items.map((item: { username: string }) => item.username)).toEqual(['carol'])
    const deleted = await adminCall(stack.origin, token, 'DELETE', '/accounts/carol')
    expect(deleted.status).toBe(200)
    expect((await adminCall(stack.origin, token, 'GET', '/accounts/carol')).status).toBe(404)
  })

  it('checks requests against the document: a bad body is a 400 listing each mismatch', async () => {
    const answer = await adminCall(stack.origin, token, 'POST', '/accounts', { username: 'x y', password: 'short', extra: true })
    expect(answer.status).toBe(400)
    expect(answer.body.type).toBe('urn:mcp-auth:admin:invalid-request')
    expect(answer.body.errors.length).toBeGreaterThan(0)
  })
})
