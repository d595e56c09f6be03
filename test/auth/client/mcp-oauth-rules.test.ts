import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { McpOAuth, McpOAuthError, type McpOAuthOptions } from '../../../src/auth/client/mcp-oauth.js'
import { FileTokenStore } from '../../../src/auth/client/token-store.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { formHandoff } from '../../helpers/form-handoff.js'
import { startTestResource, type TestResource } from '../../helpers/test-resource.js'

/**
 * The login helper against our authorization server and a small protected resource: the
 * MCP 2026-07-28 authorization rules, each observed on the wire.
 */
let dir: string
let resource: TestResource
let as: RunningAuthServer

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-rules-'))
  resource = await startTestResource({ scopes: ['mcp'] })
  as = await startAuthServer({ resources: [{ uri: resource.url, scopes: ['mcp'] }, { uri: resource.origin, scopes: ['mcp'] }] })
  await as.as.accounts.setUser('demo', 'demo password 1', {}, ['mcp'])
})
afterAll(async () => {
  await resource.close()
  await as.stop(true)
  await rm(dir, { recursive: true, force: true })
})
beforeEach(() => {
  resource.metadata = { resource: resource.url, authorization_servers: [as.issuer], scopes_supported: ['mcp'] }
})

let stores = 0
function loginHelper(options: Partial<McpOAuthOptions> & Pick<McpOAuthOptions, 'handoff'>): McpOAuth {
  return new McpOAuth(resource.url, { store: new FileTokenStore(join(dir, `${++stores}`, 'tokens.json')), ...options })
}

function call(auth: McpOAuth): Promise<Response> {
  return auth.fetch(resource.url, { method: 'POST', body: '{}' })
}

describe('McpOAuth: protected resource metadata naming another resource', () => {
  it('refuses to log in, before any authorization request, when the metadata describes another origin', async () => {
    resource.metadata.resource = 'https://evil.example.com/mcp'
    const handoff = formHandoff()
    const error = await call(loginHelper({ handoff })).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpOAuthError)
    expect((error as McpOAuthError).code).toBe('discovery')
    expect((error as Error).message).toContain('"https://evil.example.com/mcp"')
    expect(handoff.urls).toHaveLength(0)
  })

  it('refuses to log in when the metadata describes another resource on the same origin', async () => {
    resource.metadata.resource = `${resource.origin}/other`
    const handoff = formHandoff()
    await expect(call(loginHelper({ handoff }))).rejects.toThrow(McpOAuthError)
    expect(handoff.urls).toHaveLength(0)
  })

  it('logs in with the origin as resource when the metadata names the origin, and sends it verbatim', async () => {
    resource.metadata.resource = resource.origin
    const handoff = formHandoff()
    const response = await call(loginHelper({ handoff }))
    expect(response.status).toBe(200)
    expect(handoff.urls[0]!.searchParams.get('resource')).toBe(resource.origin)
  })
})
