/**
 * Issue 32: resources through the admin API, without a restart. Configured and built-in ones are
 * listed with their source and read-only; stored ones are added, changed (If-Match) and removed,
 * and served at once: by this node, and on Redis by every node. Two additions sharing an
 * identifier at once: one wins (the store's atomic create, not a find-then-save).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAuthServer, type RunningAuthServer } from '../../../helpers/auth-server.js'
import { adminCall, adminToken } from '../../../helpers/admin-api.js'
import { startRedisServer, type RedisServer } from '../../../helpers/redis-server.js'

const root = { username: 'root', password: 'root password 1' }
const secret = 'a service secret of some length'
const svc = { client_id: 'svc', client_secret: secret, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp files' }
const id = (uri: string): string => Buffer.from(uri).toString('base64url')

async function clientCredentials(origin: string, resource: string, scope = 'files') {
  const response = await fetch(`${origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`svc:${secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** Polls a token request until it answers `status` (at most `withinMs`); returns how long that took. */
async function untilToken(origin: string, resource: string, status: number, withinMs: number): Promise<number> {
  const started = Date.now()
  for (;;) {
    const answer = await clientCredentials(origin, resource)
    if (answer.status === status) return Date.now() - started
    if (Date.now() - started > withinMs) throw new Error(`token request for ${resource} still answers ${answer.status} ${JSON.stringify(answer.body)}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('admin API: resources on one node', () => {
  let server: RunningAuthServer
  let token: string
  beforeAll(async () => {
    // 'files' is a scope of the configured resource too, so the client may hold it from the start
    server = await startAuthServer({
      resources: [{ uri: 'http://127.0.0.1:1/configured', scopes: ['mcp', 'files'], aliases: ['http://127.0.0.1:1/configured/sse'] }],
      clients: [svc],
    })
    await server.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
    token = (await adminToken(server.origin, root)).access_token
  })
  afterAll(() => server?.stop(true))

  it('lists the configured and built-in resources with their source', async () => {
    const answer = await adminCall(server.origin, token, 'GET', '/resources')
    expect(answer.status).toBe(200)
    const bySource = (source: string) => answer.body.items.filter((item: { source: string }) => item.source === source).map((item: { uri: string }) => item.uri)
    expect(bySource('configured')).toEqual(['http://127.0.0.1:1/configured'])
    expect(bySource('built-in')).toEqual([`${server.origin}/admin/api`, `${server.origin}/account`])
    expect(bySource('stored')).toEqual([])
    const configured = answer.body.items[0]
    expect(configured).toMatchObject({ id: id('http://127.0.0.1:1/configured'), scopes: ['mcp', 'files'], default_scopes: ['mcp'], token_format: 'jwt' })
    expect(configured.etag).toBeUndefined()
  })

  it('adds a resource that gets tokens at once, changes it with If-Match, refuses a stale one, and removes it', async () => {
    const uri = 'http://127.0.0.1:2/files'
    expect((await clientCredentials(server.origin, uri)).status).toBe(400)
    const created = await adminCall(server.origin, token, 'POST', '/resources', { uri, scopes: ['files'], name: 'Files', access_token_ttl_seconds: 120 })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ id: id(uri), uri, source: 'stored', served: true, name: 'Files', scopes: ['files'], access_token_ttl_seconds: 120 })
    expect(created.headers.get('location')).toBe(`${server.origin}/admin/api/resources/${id(uri)}`)
    await untilToken(server.origin, uri, 200, 1000)
    const issued = decodeJwt(String((await clientCredentials(server.origin, uri)).body['access_token']))
    expect(issued.aud).toBe(uri)
    expect(issued.exp! - issued.iat!).toBe(120)

    const read = await adminCall(server.origin, token, 'GET', `/resources/${id(uri)}`)
    expect(read.status).toBe(200)
    const etag = read.headers.get('etag')!
    expect(etag).toBe(created.headers.get('etag'))
    const changed = await adminCall(
      server.origin,
      token,
      'PUT',
      `/resources/${id(uri)}`,
      { scopes: ['files'], name: 'Files, renamed', access_token_ttl_seconds: 60 },
      { 'if-match': etag },
    )
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ name: 'Files, renamed', access_token_ttl_seconds: 60 })
    expect(changed.headers.get('etag')).not.toBe(etag)
    const stale = await adminCall(server.origin, token, 'PUT', `/resources/${id(uri)}`, { scopes: ['files'], name: 'lost update' }, { 'if-match': etag })
    expect(stale.status).toBe(412)
    expect(stale.body.type).toBe('urn:mcp-auth:admin:precondition-failed')
    expect((await adminCall(server.origin, token, 'DELETE', `/resources/${id(uri)}`, undefined, { 'if-match': etag })).status).toBe(412)
    expect((await adminCall(server.origin, token, 'GET', `/resources/${id(uri)}`)).body.name).toBe('Files, renamed')

    const removed = await adminCall(server.origin, token, 'DELETE', `/resources/${id(uri)}`, undefined, { 'if-match': changed.headers.get('etag')! })
    expect(removed.status).toBe(204)
    await untilToken(server.origin, uri, 400, 1000)
    expect((await adminCall(server.origin, token, 'GET', `/resources/${id(uri)}`)).status).toBe(404)
  })

  it('refuses to change or remove a configured or built-in resource, saying where it is changed', async () => {
    const configured = id('http://127.0.0.1:1/configured')
    const put = await adminCall(server.origin, token, 'PUT', `/resources/${configured}`, { scopes: ['mcp'] })
    expect(put.status).toBe(409)
    expect(put.body).toMatchObject({ type: 'urn:mcp-auth:admin:conflict', source: 'configured' })
    expect(put.body.detail).toContain('configuration')
    expect((await adminCall(server.origin, token, 'DELETE', `/resources/${configured}`)).status).toBe(409)
    const builtIn = await adminCall(server.origin, token, 'DELETE', `/resources/${id(`${server.origin}/admin/api`)}`)
    expect(builtIn.status).toBe(409)
    expect(builtIn.body.source).toBe('built-in')
    // nor may a stored one take a configured resource's alias
    const alias = await adminCall(server.origin, token, 'POST', '/resources', { uri: 'http://127.0.0.1:3/mcp', aliases: ['http://127.0.0.1:1/configured/sse'] })
    expect(alias.status).toBe(409)
    expect(alias.body.detail).toContain('http://127.0.0.1:1/configured')
  })

  it('refuses an invalid resource, one stored already, and an id that names none', async () => {
    const invalid = await adminCall(server.origin, token, 'POST', '/resources', { uri: 'http://example.com/mcp' })
    expect(invalid.status).toBe(400)
    expect(invalid.body.detail).toMatch(/https/)
    const badDefaults = await adminCall(server.origin, token, 'POST', '/resources', { uri: 'https://example.com/mcp', scopes: ['a'], default_scopes: ['b'] })
    expect(badDefaults.status).toBe(400)
    expect((await adminCall(server.origin, token, 'POST', '/resources', { uri: 'https://example.com/x', token_format: 'paper' })).status).toBe(400)
    expect((await adminCall(server.origin, token, 'POST', '/resources', { uri: 'https://example.com/twice' })).status).toBe(201)
    const twice = await adminCall(server.origin, token, 'POST', '/resources', { uri: 'https://example.com/twice' })
    expect(twice.status).toBe(409)
    expect(twice.body.detail).toContain('PUT')
    expect((await adminCall(server.origin, token, 'GET', `/resources/${id('https://example.com/none')}`)).status).toBe(404)
    expect((await adminCall(server.origin, token, 'GET', '/resources/not*base64')).status).toBe(400)
    expect((await adminCall(server.origin, token, 'PUT', `/resources/${id('https://example.com/twice')}`, { uri: 'https://example.com/other' })).status).toBe(400)
  })

  it('lets one of two resources added at once with a shared alias win', async () => {
    const alias = 'https://example.com/shared/sse'
    const answers = await Promise.all(
      ['https://example.com/a', 'https://example.com/b', 'https://example.com/c'].map((uri) => adminCall(server.origin, token, 'POST', '/resources', { uri, aliases: [alias] })),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409])
    const listed = (await adminCall(server.origin, token, 'GET', '/resources')).body.items
    expect(listed.filter((item: { aliases?: string[] }) => item.aliases?.includes(alias))).toHaveLength(1)
    // once the winner is removed, its alias is free again
    const winner = answers.find((answer) => answer.status === 201)!.body
    expect((await adminCall(server.origin, token, 'DELETE', `/resources/${winner.id}`)).status).toBe(204)
    expect((await adminCall(server.origin, token, 'POST', '/resources', { uri: 'https://example.com/d', aliases: [alias] })).status).toBe(201)
  })

  it('shows a stored resource that a configured one hides as not served', async () => {
    // stored with the CLI's call, which does not know the configuration
    await server.as.resources.add({ uri: 'http://127.0.0.1:4/hidden', aliases: ['http://127.0.0.1:1/configured/sse'] })
    const listed = await adminCall(server.origin, token, 'GET', '/resources')
    expect(listed.body.items.find((item: { uri: string }) => item.uri === 'http://127.0.0.1:4/hidden')).toMatchObject({ source: 'stored', served: false })
    expect((await adminCall(server.origin, token, 'DELETE', `/resources/${id('http://127.0.0.1:4/hidden')}`)).status).toBe(204)
  })

  it('refuses a request without an administrator’s token', async () => {
    expect((await adminCall(server.origin, undefined, 'GET', '/resources')).status).toBe(401)
    expect((await adminCall(server.origin, undefined, 'POST', '/resources', { uri: 'https://example.com/anon' })).status).toBe(401)
  })
})

describe('admin API: resources on two nodes sharing one redis-server', () => {
  let redis: RedisServer
  let dataDir: string
  const nodes: RunningAuthServer[] = []
  beforeAll(async () => {
    redis = await startRedisServer()
    dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-resources-cluster-'))
    for (let i = 0; i < 2; i++)
      nodes.push(
        await startAuthServer({
          dataDir,
          redis: { url: redis.url, prefix: 'resources:' },
          clients: [svc],
          resources: [{ uri: 'http://127.0.0.1:1/mcp', scopes: ['mcp', 'files'] }],
        }),
      )
    await nodes[0]!.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  })
  afterAll(async () => {
    for (const node of nodes) await node.stop()
    await rm(dataDir, { recursive: true, force: true })
    await redis?.close()
  })

  it('serves a resource added on node A from node B within a second, and stops when it is removed there', async () => {
    const [a, b] = nodes as [RunningAuthServer, RunningAuthServer]
    const token = (await adminToken(a.origin, root)).access_token
    const uri = 'http://127.0.0.1:2/cluster'
    expect((await clientCredentials(b.origin, uri)).status).toBe(400)
    expect((await adminCall(a.origin, token, 'POST', '/resources', { uri, scopes: ['files'] })).status).toBe(201)
    expect(await untilToken(b.origin, uri, 200, 1000)).toBeLessThan(1000)
    expect(decodeJwt(String((await clientCredentials(b.origin, uri)).body['access_token'])).aud).toBe(uri)
    expect((await adminCall(a.origin, token, 'DELETE', `/resources/${id(uri)}`)).status).toBe(204)
    expect(await untilToken(b.origin, uri, 400, 1000)).toBeLessThan(1000)
  })

  it('lets one of two nodes win when both add resources sharing an alias at once', async () => {
    const [a, b] = nodes as [RunningAuthServer, RunningAuthServer]
    const tokenA = (await adminToken(a.origin, root)).access_token
    const tokenB = (await adminToken(b.origin, root)).access_token
    const alias = 'https://example.com/raced/sse'
    const answers = await Promise.all([
      adminCall(a.origin, tokenA, 'POST', '/resources', { uri: 'https://example.com/on-a', aliases: [alias] }),
      adminCall(b.origin, tokenB, 'POST', '/resources', { uri: 'https://example.com/on-b', aliases: [alias] }),
    ])
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409])
  })
})
