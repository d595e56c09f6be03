/**
 * Issue 28, item 1: when the login helper and the machine clients ask for DPoP-bound tokens,
 * against our authorization server (which offers DPoP) and a resource whose metadata each test
 * sets: `auto` binds only when the resource's metadata says it accepts DPoP, `always` whenever
 * the authorization server offers it, `never` asks for Bearer and refuses a resource that
 * requires DPoP before any login page; a Bearer-only instance keeps its tokens beside bound ones.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ClientCredentialsAuth } from '../../../src/auth/client/client-credentials-auth.js'
import type { DpopMode } from '../../../src/auth/client/dpop-mode.js'
import { McpOAuth } from '../../../src/auth/client/mcp-oauth.js'
import { McpOAuthError } from '../../../src/auth/client/mcp-oauth-error.js'
import { FileTokenStore } from '../../../src/auth/client/token-store.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { formHandoff } from '../../helpers/form-handoff.js'
import { startTestResource, type TestResource } from '../../helpers/test-resource.js'

const SECRET = 'machine secret that is long enough 0123456789'
let dir: string
let resource: TestResource
let as: RunningAuthServer

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-dpop-choice-'))
  resource = await startTestResource({ scopes: ['mcp'] })
  as = await startAuthServer({
    resources: [{ uri: resource.url, scopes: ['mcp'] }],
    clients: [{ client_id: 'machine', client_secret: SECRET, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp' }],
  })
  await as.as.accounts.setUser('demo', 'demo password 1', {}, ['mcp'])
})
afterAll(async () => {
  await resource.close()
  await as.stop(true)
  await rm(dir, { recursive: true, force: true })
})

/** The resource's metadata: DPoP fields as a test gives them. */
function publish(dpop: { dpop_signing_alg_values_supported?: string[]; dpop_bound_access_tokens_required?: boolean } = {}): void {
  resource.metadata = { resource: resource.url, authorization_servers: [as.issuer], scopes_supported: ['mcp'], ...dpop }
}
beforeEach(() => {
  publish()
  resource.schemes.length = 0
})

let stores = 0
const newStore = (): FileTokenStore => new FileTokenStore(join(dir, `${++stores}`, 'tokens.json'))

async function schemeOfUserLogin(dpop: DpopMode | undefined, store = newStore()): Promise<string> {
  const auth = new McpOAuth(resource.url, { store, handoff: formHandoff(), ...(dpop !== undefined ? { dpop } : {}) })
  const response = await auth.fetch(resource.url, { method: 'POST', body: '{}' })
  expect(response.status).toBe(200)
  return resource.schemes.at(-1)!
}

async function schemeOfMachine(dpop: DpopMode | undefined): Promise<string> {
  const auth = new ClientCredentialsAuth(resource.url, { clientId: 'machine', clientSecret: SECRET, ...(dpop !== undefined ? { dpop } : {}) })
  const response = await auth.fetch(resource.url, { method: 'POST', body: '{}' })
  expect(response.status).toBe(200)
  return resource.schemes.at(-1)!
}

describe('McpOAuth dpop', () => {
  it('auto (the default) asks for Bearer when the resource metadata says nothing of DPoP, though the authorization server offers it', async () => {
    expect(await schemeOfUserLogin(undefined)).toBe('Bearer')
  })

  it('auto binds when the resource metadata lists ES256, or requires DPoP', async () => {
    publish({ dpop_signing_alg_values_supported: ['ES256', 'RS256'] })
    expect(await schemeOfUserLogin('auto')).toBe('DPoP')
    publish({ dpop_bound_access_tokens_required: true })
    expect(await schemeOfUserLogin('auto')).toBe('DPoP')
    // another algorithm only: not ours, Bearer
    publish({ dpop_signing_alg_values_supported: ['EdDSA'] })
    expect(await schemeOfUserLogin('auto')).toBe('Bearer')
  })

  it('always binds whatever the resource metadata says; never asks for Bearer where the resource offers DPoP', async () => {
    expect(await schemeOfUserLogin('always')).toBe('DPoP')
    publish({ dpop_signing_alg_values_supported: ['ES256'] })
    expect(await schemeOfUserLogin('never')).toBe('Bearer')
  })

  it('never refuses a resource that requires DPoP, saying so, before any login page', async () => {
    publish({ dpop_bound_access_tokens_required: true })
    const handoff = formHandoff()
    const auth = new McpOAuth(resource.url, { store: newStore(), handoff, dpop: 'never' })
    const refused = await auth.login().catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(McpOAuthError)
    expect((refused as McpOAuthError).code).toBe('dpop')
    expect((refused as McpOAuthError).message).toContain(`${resource.url} accepts only DPoP-bound access tokens`)
    expect(handoff.urls).toEqual([])
  })

  it('always refuses an authorization server that does not offer DPoP, before any login page', async () => {
    const handoff = formHandoff()
    const withoutDpop: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      if (new URL(input instanceof Request ? input.url : String(input)).pathname !== '/.well-known/oauth-authorization-server') return response
      const { dpop_signing_alg_values_supported: _offered, ...metadata } = (await response.json()) as Record<string, unknown>
      return Response.json(metadata)
    }
    const auth = new McpOAuth(resource.url, { store: newStore(), handoff, dpop: 'always', fetch: withoutDpop })
    const refused = await auth.login().catch((error: unknown) => error)
    expect((refused as McpOAuthError).code).toBe('dpop')
    expect((refused as McpOAuthError).message).toContain(`${as.issuer} does not offer DPoP with ES256`)
    expect(handoff.urls).toEqual([])
  })

  it('keeps a Bearer-only instance’s tokens beside the bound ones of the same resource; logout forgets both', async () => {
    publish({ dpop_signing_alg_values_supported: ['ES256'] })
    const store = newStore()
    expect(await schemeOfUserLogin('auto', store)).toBe('DPoP')
    const bound = await store.getTokens(as.issuer, resource.url)
    expect(await schemeOfUserLogin('never', store)).toBe('Bearer')
    expect(await store.getTokens(as.issuer, resource.url)).toEqual(bound)
    expect((await store.getTokens(as.issuer, `${resource.url}#bearer`))?.token_type).toMatch(/^bearer$/i)
    // each uses its own from now on, without a login
    const again = new McpOAuth(resource.url, { store, handoff: formHandoff(), dpop: 'never' })
    expect(await again.accessToken()).toBe((await store.getTokens(as.issuer, `${resource.url}#bearer`))?.access_token)
    await again.logout()
    expect(await store.list()).toEqual([])
  })

  it('shares one Bearer login between both when the resource takes Bearer anyway', async () => {
    const store = newStore()
    const handoff = formHandoff()
    expect(await schemeOfUserLogin('auto', store)).toBe('Bearer')
    const bearerOnly = new McpOAuth(resource.url, { store, handoff, dpop: 'never' })
    expect(await bearerOnly.accessToken()).toBe((await store.getTokens(as.issuer, resource.url))?.access_token)
    expect(handoff.urls).toEqual([])
  })
})

describe('a token store written before issue 28', () => {
  it('keeps working: its entries (no client_id, no Bearer entry beside) are used as they are, by every dpop choice', async () => {
    publish({ dpop_signing_alg_values_supported: ['ES256'] })
    const store = newStore()
    expect(await schemeOfUserLogin('never', store)).toBe('Bearer')
    // the file as an earlier version wrote it: version 1, tokens keyed by [issuer, resource], no client_id
    const { client_id: _added, ...old } = (await store.getTokens(as.issuer, resource.url))!
    await writeFile(
      store.file,
      JSON.stringify({ version: 1, clients: { [as.issuer]: await store.getClient(as.issuer) }, tokens: { [JSON.stringify([as.issuer, resource.url])]: old } }),
      {
        mode: 0o600,
      },
    )
    for (const dpop of ['auto', 'never', 'always'] as const) {
      const handoff = formHandoff()
      const auth = new McpOAuth(resource.url, { store: new FileTokenStore(store.file), handoff, dpop })
      expect(await auth.accessToken()).toBe(old.access_token)
      expect(handoff.urls).toEqual([])
    }
  })
})

describe('ClientCredentialsAuth dpop', () => {
  it('asks for Bearer by default when the resource metadata says nothing of DPoP, binds when it lists ES256', async () => {
    expect(await schemeOfMachine(undefined)).toBe('Bearer')
    publish({ dpop_signing_alg_values_supported: ['ES256'] })
    expect(await schemeOfMachine(undefined)).toBe('DPoP')
    expect(await schemeOfMachine('never')).toBe('Bearer')
  })

  it('binds with always; never refuses a resource that requires DPoP', async () => {
    expect(await schemeOfMachine('always')).toBe('DPoP')
    publish({ dpop_bound_access_tokens_required: true })
    const auth = new ClientCredentialsAuth(resource.url, { clientId: 'machine', clientSecret: SECRET, dpop: 'never' })
    const refused = await auth.accessToken().catch((error: unknown) => error)
    expect((refused as McpOAuthError).code).toBe('dpop')
  })
})
