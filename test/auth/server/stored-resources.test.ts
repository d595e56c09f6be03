/**
 * Protected resources as managed data (issue 15): stored in the data directory beside accounts
 * and clients, served from the next start with their own scopes, default scopes and token
 * lifetime, named on the consent page; validated like configured ones; `mcp-auth resources`
 * adds, lists and removes them.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJwt } from 'jose'
import { afterEach, describe, expect, it } from 'vitest'
import { createAuthorizationServer } from '../../../src/auth/server/create-authorization-server.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { runCli } from '../../helpers/cli-process.js'
import { CookieJar } from '../../helpers/form-login.js'

const OTHER = 'http://localhost:4160/mcp'
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-resources-'))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Stores `OTHER` in a data directory with the server stopped, as `resources add` does. */
async function storeOther(dir: string): Promise<void> {
  const as = await createAuthorizationServer({ dataDir: dir, issuer: 'http://127.0.0.1:1' })
  await as.resources.add({ uri: OTHER, scopes: ['files:read', 'files:write'], defaultScopes: ['files:read'], name: 'File server', accessTokenTtlSeconds: 300 })
  await as.close()
}

async function start(dir: string, clientScope = 'files:read files:write mcp'): Promise<RunningAuthServer> {
  const s = await startAuthServer({
    dataDir: dir,
    clients: [
      { client_id: 'svc', client_secret: 'a service secret of some length', grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: clientScope },
    ],
  })
  cleanups.push(() => s.stop())
  return s
}

async function clientCredentials(s: RunningAuthServer, resource: string, scope: string) {
  const response = await fetch(`${s.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('svc:a service secret of some length').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('stored resources', () => {
  it('get tokens from the next start, bound to their URI, with their scopes and token lifetime', async () => {
    const dir = await dataDir()
    await storeOther(dir)
    const s = await start(dir)
    const { status, body } = await clientCredentials(s, OTHER, 'files:read files:write')
    expect(status).toBe(200)
    const claims = decodeJwt(String(body['access_token']))
    expect(claims.aud).toBe(OTHER)
    expect(claims['scope']).toBe('files:read files:write')
    expect(claims.exp! - claims.iat!).toBe(300)
    expect(body['expires_in']).toBe(300)
  })

  it('leave the configured resource first and unchanged', async () => {
    const dir = await dataDir()
    await storeOther(dir)
    const s = await start(dir)
    const { status, body } = await clientCredentials(s, `${s.origin}/mcp`, 'mcp')
    expect(status).toBe(200)
    const claims = decodeJwt(String(body['access_token']))
    expect(claims.aud).toBe(`${s.origin}/mcp`)
    // the server's client_credentials lifetime, not the stored resource's
    expect(claims.exp! - claims.iat!).toBe(600)
  })

  it('are unknown to a server started before they were added (invalid_target naming the resource)', async () => {
    const s = await start(await dataDir(), 'mcp')
    const { status, body } = await clientCredentials(s, OTHER, 'files:read')
    expect(status).toBe(400)
    expect(body['error']).toBe('invalid_target')
    expect(String(body['error_description'])).toContain(OTHER)
  })

  it('are named on the login and consent pages', async () => {
    const dir = await dataDir()
    await storeOther(dir)
    const s = await start(dir)
    const reg = await fetch(`${s.origin}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Files app', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' }),
    })
    const { client_id } = (await reg.json()) as { client_id: string }
    const authorize = new URL(`${s.origin}/authorize`)
    authorize.search = new URLSearchParams({
      client_id,
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1/callback',
      resource: OTHER,
      scope: 'files:read',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString()
    const jar = new CookieJar()
    const first = await fetch(authorize, { redirect: 'manual' })
    jar.store(first, authorize)
    const interaction = new URL(first.headers.get('location')!, s.origin)
    const login = await (await fetch(interaction, { headers: { cookie: jar.header(interaction) } })).text()
    expect(login).toContain('<strong>File server</strong>')
    expect(login.replace(/<[^>]+>/g, '')).toContain('wants to access File server (http://localhost:4160/mcp)')
  })

  it('are validated like configured ones', async () => {
    const dir = await dataDir()
    const as = await createAuthorizationServer({ dataDir: dir, issuer: 'http://127.0.0.1:1' })
    cleanups.push(() => as.close())
    await expect(as.resources.add({ uri: 'http://example.com/mcp' })).rejects.toThrow(/https/)
    await expect(as.resources.add({ uri: 'https://example.com/mcp?x=1' })).rejects.toThrow(/query or fragment/)
    await expect(as.resources.add({ uri: 'https://example.com/mcp', scopes: ['a'], defaultScopes: ['b'] })).rejects.toThrow(/defaultScopes .* b/)
    await expect(as.resources.add({ uri: 'https://example.com/mcp', scopes: ['bad scope'] })).rejects.toThrow(/scope tokens/)
    expect(await as.resources.list()).toEqual([])
  })
})

describe('mcp-auth resources', () => {
  it('adds, lists and removes a resource in a data directory', async () => {
    const dir = await dataDir()
    const add = await runCli(['resources', 'add', OTHER, '--scopes', 'files:read files:write', '--name', 'File server', '--token-lifetime', '600', '--data-dir', dir])
    expect(add.stderr).toBe('')
    expect(add.code).toBe(0)
    expect(add.stdout).toMatch(/resource http:\/\/localhost:4160\/mcp saved: scopes files:read files:write \(default files:read\)/)
    const list = await runCli(['resources', 'list', '--data-dir', dir])
    expect(list.stdout).toBe(`${OTHER}\tFile server\tscopes: files:read files:write\tdefault: files:read\ttokens 600 s\n`)
    const remove = await runCli(['resources', 'remove', OTHER, '--data-dir', dir])
    expect(remove.code).toBe(0)
    expect((await runCli(['resources', 'list', '--data-dir', dir])).stdout).toBe('')
    const again = await runCli(['resources', 'remove', OTHER, '--data-dir', dir])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/no stored resource/)
  })

  it('refuses a URL the server would refuse, with the reason', async () => {
    const { code, stderr } = await runCli(['resources', 'add', 'http://example.com/mcp', '--data-dir', await dataDir()])
    expect(code).toBe(2)
    expect(stderr).toMatch(/https/)
  })

  it('refuses to write beside a running server on the same data directory', async () => {
    const dir = await dataDir()
    await start(dir, 'mcp')
    const { code, stderr } = await runCli(['resources', 'add', OTHER, '--data-dir', dir])
    expect(code).not.toBe(0)
    expect(stderr).toMatch(/lock|another process|running/i)
  })
})

describe('config/auth-server.example.json', () => {
  it('is a valid configuration, per-resource lifetimes included', async () => {
    const { readFile } = await import('node:fs/promises')
    const { resolveOptions } = await import('../../../src/auth/server/options.js')
    const example = JSON.parse(await readFile(new URL('../../../config/auth-server.example.json', import.meta.url), 'utf8')) as Record<string, unknown>
    const resolved = resolveOptions(example)
    expect(resolved.resources.map((resource) => resource.uri)).toEqual(['https://mcp.example.com/mcp', 'https://files.example.com/mcp'])
    expect(resolved.resources[1]).toMatchObject({ defaultScopes: ['files:read'], accessTokenTtlSeconds: 900 })
  })
})
