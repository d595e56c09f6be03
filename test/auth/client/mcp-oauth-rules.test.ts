import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { McpOAuth, type McpOAuthOptions } from '../../../src/auth/client/mcp-oauth.js'
import { McpOAuthError } from '../../../src/auth/client/mcp-oauth-error.js'
import { FileTokenStore } from '../../../src/auth/client/token-store.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { formHandoff } from '../../helpers/form-handoff.js'
import { startTestResource, type TestResource } from '../../helpers/test-resource.js'
import { freePort } from '../../helpers/free-port.js'

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
  as = await startAuthServer({
    resources: [
      { uri: resource.url, scopes: ['mcp'] },
      { uri: resource.origin, scopes: ['mcp'] },
    ],
  })
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

/**
 * The network as the login helper sees it: records each request's path and lets a test edit the
 * authorization server's metadata on its way (a server that advertises less than ours does).
 */
function observingFetch(editMetadata?: (metadata: Record<string, unknown>) => void): typeof fetch & { paths: string[] } {
  const paths: string[] = []
  const observing = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const response = await fetch(input, init)
    // a DPoP nonce challenge at the token endpoint (answered at once with the nonce) is told apart
    paths.push(url.pathname === '/token' && response.status === 400 && response.headers.has('dpop-nonce') ? '/token (DPoP nonce challenge)' : url.pathname)
    if (editMetadata === undefined || url.pathname !== '/.well-known/oauth-authorization-server') return response
    const metadata = (await response.json()) as Record<string, unknown>
    editMetadata(metadata)
    return Response.json(metadata, { status: response.status })
  }
  return Object.assign(observing, { paths })
}

/** A public client registered at the first authorization server by its operator, with a fixed loopback port. */
async function preRegister(): Promise<{ port: number; configured: { client_id: string } }> {
  const port = await freePort()
  const configured = await as.as.addClient({
    client_name: 'pre-registered',
    application_type: 'native',
    redirect_uris: [`http://127.0.0.1:${port}/callback`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  })
  return { port, configured }
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

describe('McpOAuth: the authorization response issuer (RFC 9207)', () => {
  it('redeems the code when iss is the issuer the login was sent to', async () => {
    const handoff = formHandoff()
    const response = await call(loginHelper({ handoff }))
    expect(response.status).toBe(200)
    expect(handoff.callbackStatuses).toEqual([200])
  })

  it.each([
    ['names another server', (callback: URL) => callback.searchParams.set('iss', 'https://evil.example.com')],
    ['is missing although the server advertises it', (callback: URL) => callback.searchParams.delete('iss')],
    ['differs from the issuer only by a trailing slash', (callback: URL) => callback.searchParams.set('iss', `${as.issuer}/`)],
  ])('refuses a response whose iss %s, and never redeems its code', async (_case, tamper) => {
    const handoff = formHandoff({ tamper })
    const network = observingFetch()
    const error = await call(loginHelper({ handoff, fetch: network })).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpOAuthError)
    expect((error as Error).message).toContain('RFC 9207')
    expect(handoff.callbackStatuses).toEqual([400])
    expect(network.paths).not.toContain('/token')
  })

  it('refuses a wrong iss from a server that does not advertise iss support', async () => {
    const handoff = formHandoff({ tamper: (callback) => callback.searchParams.set('iss', 'https://evil.example.com') })
    const network = observingFetch((metadata) => delete metadata['authorization_response_iss_parameter_supported'])
    await expect(call(loginHelper({ handoff, fetch: network }))).rejects.toThrow('names the issuer "https://evil.example.com"')
    expect(network.paths).not.toContain('/token')
  })

  it('redeems a code without iss from a server that does not advertise iss support', async () => {
    const handoff = formHandoff({ tamper: (callback) => callback.searchParams.delete('iss') })
    const network = observingFetch((metadata) => delete metadata['authorization_response_iss_parameter_supported'])
    expect((await call(loginHelper({ handoff, fetch: network }))).status).toBe(200)
  })
})

describe('McpOAuth: dynamic client registration', () => {
  it('registers its loopback redirect as a native application', async () => {
    const store = new FileTokenStore(join(dir, 'registration', 'tokens.json'))
    expect((await call(new McpOAuth(resource.url, { store, handoff: formHandoff() }))).status).toBe(200)
    const registration = await store.getClient(as.issuer)
    expect(registration?.source).toBe('dynamic')
    const registered = await as.as.provider.Client.find(registration!.client_id)
    expect(registered?.applicationType).toBe('native')
    expect(registered?.redirectUris?.[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
  })
})

describe('McpOAuth: offline_access (SEP-2207)', () => {
  it('asks for offline_access besides the resource scope when the authorization server lists it', async () => {
    const handoff = formHandoff()
    expect((await call(loginHelper({ handoff }))).status).toBe(200)
    expect(handoff.urls[0]!.searchParams.get('scope')).toBe('mcp offline_access')
  })

  it('does not ask for offline_access when the authorization server does not list it', async () => {
    const handoff = formHandoff()
    const network = observingFetch((metadata) => {
      metadata['scopes_supported'] = (metadata['scopes_supported'] as string[]).filter((scope) => scope !== 'offline_access')
    })
    expect((await call(loginHelper({ handoff, fetch: network }))).status).toBe(200)
    expect(handoff.urls[0]!.searchParams.get('scope')).toBe('mcp')
  })
})

describe('McpOAuth: pre-registered credentials', () => {
  it('refreshes with them when the access token is about to expire, without a new login', async () => {
    const { port, configured } = await preRegister()
    const store = new FileTokenStore(join(dir, 'pre-registered', 'tokens.json'))
    const handoff = formHandoff()
    const network = observingFetch()
    const options = { store, handoff, fetch: network, callbackPort: port, clients: { [as.issuer]: { client_id: configured.client_id } } }
    expect((await call(new McpOAuth(resource.url, options))).status).toBe(200)
    const held = (await store.getTokens(as.issuer, resource.url))!
    await store.setTokens(as.issuer, resource.url, { ...held, expires_at: Math.floor(Date.now() / 1000) })
    network.paths.length = 0
    expect((await call(new McpOAuth(resource.url, options))).status).toBe(200)
    expect(network.paths.filter((path) => path === '/token')).toHaveLength(1)
    expect((await store.getTokens(as.issuer, resource.url))!.access_token).not.toBe(held.access_token)
    expect(handoff.urls).toHaveLength(1)
  })
})

describe('McpOAuth: a resource that moves to another authorization server (SEP-2352)', () => {
  let as2: RunningAuthServer
  beforeAll(async () => {
    as2 = await startAuthServer({ resources: [{ uri: resource.url, scopes: ['mcp'] }] })
    await as2.as.accounts.setUser('demo', 'demo password 1', {}, ['mcp'])
  })
  afterAll(() => as2.stop(true))

  it('registers at the new server, logs in there, and sends the old server’s tokens no more', async () => {
    const store = new FileTokenStore(join(dir, 'migration', 'tokens.json'))
    const handoff = formHandoff()
    const auth = new McpOAuth(resource.url, { store, handoff })
    expect((await call(auth)).status).toBe(200)
    const first = await store.getClient(as.issuer)
    const oldToken = (await store.getTokens(as.issuer, resource.url))!.access_token

    resource.metadata.authorization_servers = [as2.issuer]
    resource.bearers.length = 0
    expect((await call(auth)).status).toBe(200)
    expect((await call(auth)).status).toBe(200)

    const second = await store.getClient(as2.issuer)
    expect(second?.source).toBe('dynamic')
    expect(second?.client_id).not.toBe(first?.client_id)
    expect(await as2.as.provider.Client.find(first!.client_id)).toBeUndefined()
    expect(handoff.urls.map((url) => url.origin)).toEqual([new URL(as.issuer).origin, new URL(as2.issuer).origin])
    expect(handoff.urls[1]!.searchParams.get('client_id')).toBe(second?.client_id)
    // The old token went out once, which is how the client learnt of the move; never again.
    expect(resource.bearers.filter((bearer) => bearer === oldToken)).toHaveLength(1)
    expect(resource.bearers.at(-1)).toBe((await store.getTokens(as2.issuer, resource.url))!.access_token)
  })

  it('does not send tokens stored for the old server when a later run finds the resource moved', async () => {
    const store = new FileTokenStore(join(dir, 'moved-between-runs', 'tokens.json'))
    const handoff = formHandoff()
    expect((await call(new McpOAuth(resource.url, { store, handoff }))).status).toBe(200)
    const oldToken = (await store.getTokens(as.issuer, resource.url))!.access_token
    resource.metadata.authorization_servers = [as2.issuer]
    resource.bearers.length = 0
    expect((await call(new McpOAuth(resource.url, { store, handoff }))).status).toBe(200)
    expect(resource.bearers).not.toContain(oldToken)
    expect(handoff.urls.at(-1)!.origin).toBe(new URL(as2.issuer).origin)
  })

  it('does not take credentials configured for any issuer to the new server, and says what to configure', async () => {
    const { port, configured } = await preRegister()
    const handoff = formHandoff()
    const auth = loginHelper({ handoff, callbackPort: port, strictCallbackPort: true, anyIssuerClient: { client_id: configured.client_id } })
    expect((await call(auth)).status).toBe(200)
    resource.metadata.authorization_servers = [as2.issuer]
    const error = await call(auth).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpOAuthError)
    expect((error as McpOAuthError).code).toBe('registration')
    expect((error as Error).message).toContain(`configure a client for ${as2.issuer}`)
    expect(handoff.urls).toHaveLength(1)
  })
})
