/**
 * Issue 28, item 2 (the client half): one login per server. A user logged in for one endpoint of
 * a server (`/mcp`) is not asked again for another (`/sse`): the login helper refreshes the
 * grant's refresh token for the other resource (RFC 8707 §2.2) and stores the new tokens under it,
 * the sibling's kept, a rotated refresh token shared by both. A refusal (`invalid_target`: the
 * endpoint is outside the grant) falls back to a login silently, and tokens of another origin are
 * never tried. Our authorization server, real: the grant covers two endpoints because the
 * authorization request names both resources (RFC 8707 allows several), as the server side will
 * do for the endpoints of one server.
 */
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { McpOAuth } from '../../../src/auth/client/mcp-oauth.js'
import { FileTokenStore } from '../../../src/auth/client/token-store.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { formHandoff, type FormHandoff } from '../../helpers/form-handoff.js'

let dir: string
let as: RunningAuthServer
const servers: Server[] = []
/** One server, three endpoints, each its own resource; and a server on another origin. */
let origin: string
let elsewhere: string
/** The token requests the login helpers sent: grant type and resource. */
const tokenRequests: Array<{ grant: string | null; resource: string | null }> = []

/** The login helpers' network: token requests recorded on their way. */
const observing: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input))
  if (url.pathname === '/token' && init?.body !== undefined && init.body !== null) {
    const form = new URLSearchParams(init.body instanceof URLSearchParams ? init.body : String(init.body))
    tokenRequests.push({ grant: form.get('grant_type'), resource: form.get('resource') })
  }
  return fetch(input, init)
}

/** Serves RFC 9728 metadata per endpoint and accepts a token whose audience is that endpoint. */
async function endpoints(paths: string[]): Promise<string> {
  const server = createServer((req, res) => {
    const here = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const path = new URL(req.url ?? '/', here).pathname
    const metadataFor = paths.find((p) => path === `/.well-known/oauth-protected-resource${p}`)
    if (metadataFor !== undefined) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ resource: `${here}${metadataFor}`, authorization_servers: [as.issuer], scopes_supported: ['mcp'] }))
      return
    }
    if (!paths.includes(path)) {
      res.writeHead(404).end()
      return
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
    let audience: unknown
    try {
      audience = token === undefined ? undefined : decodeJwt(token).aud
    } catch {}
    if (audience === `${here}${path}`) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
      return
    }
    res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${here}/.well-known/oauth-protected-resource${path}", scope="mcp"` }).end()
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-one-login-'))
  origin = await endpoints(['/mcp', '/sse', '/rest'])
  elsewhere = await endpoints(['/mcp'])
  as = await startAuthServer({
    resources: [`${origin}/mcp`, `${origin}/sse`, `${origin}/rest`, `${elsewhere}/mcp`].map((uri) => ({ uri, scopes: ['mcp'] })),
  })
  await as.as.accounts.setUser('demo', 'demo password 1', {}, ['mcp'])
})
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  await as.stop(true)
  await rm(dir, { recursive: true, force: true })
})

/** A hand-off whose authorization request names these resources too (one grant for several endpoints). */
function coveringHandoff(...also: string[]): FormHandoff {
  const inner = formHandoff()
  const handoff = Object.assign(
    async (url: URL) => {
      for (const resource of also) url.searchParams.append('resource', resource)
      handoff.urls.push(url)
      await inner(url)
    },
    { urls: [] as URL[], callbackStatuses: inner.callbackStatuses },
  )
  return handoff
}

const call = (auth: McpOAuth, url: string) => auth.fetch(url, { method: 'POST', body: '{}' })

describe('one login per server', () => {
  it('gets a token for another endpoint of the server by refreshing the grant for it, without a login; the sibling keeps its tokens', async () => {
    const store = new FileTokenStore(join(dir, 'shared', 'tokens.json'))
    const first = new McpOAuth(`${origin}/mcp`, { store, handoff: coveringHandoff(`${origin}/sse`), fetch: observing })
    expect((await call(first, `${origin}/mcp`)).status).toBe(200)
    const mcpTokens = (await store.getTokens(as.issuer, `${origin}/mcp`))!
    expect(mcpTokens.refresh_token).toBeDefined()

    tokenRequests.length = 0
    const handoff = formHandoff()
    const second = new McpOAuth(`${origin}/sse`, { store, handoff, fetch: observing })
    expect((await call(second, `${origin}/sse`)).status).toBe(200)
    expect(handoff.urls).toEqual([])
    expect(tokenRequests).toEqual([{ grant: 'refresh_token', resource: `${origin}/sse` }])
    const sseTokens = (await store.getTokens(as.issuer, `${origin}/sse`))!
    expect(decodeJwt(sseTokens.access_token).aud).toBe(`${origin}/sse`)
    // the /mcp entry keeps its access token; a rotated refresh token is stored for both
    const mcpNow = (await store.getTokens(as.issuer, `${origin}/mcp`))!
    expect(mcpNow.access_token).toBe(mcpTokens.access_token)
    expect(mcpNow.refresh_token).toBe(sseTokens.refresh_token)
    // and /mcp still refreshes with it
    await store.setTokens(as.issuer, `${origin}/mcp`, { ...mcpNow, expires_at: Math.floor(Date.now() / 1000) })
    const again = new McpOAuth(`${origin}/mcp`, { store, handoff, fetch: observing })
    expect((await call(again, `${origin}/mcp`)).status).toBe(200)
    expect(handoff.urls).toEqual([])
  })

  it('logs in as usual when the endpoint is outside the grant (invalid_target), keeping the sibling as it was', async () => {
    const store = new FileTokenStore(join(dir, 'outside', 'tokens.json'))
    expect((await call(new McpOAuth(`${origin}/mcp`, { store, handoff: formHandoff(), fetch: observing }), `${origin}/mcp`)).status).toBe(200)
    const before = await store.getTokens(as.issuer, `${origin}/mcp`)
    tokenRequests.length = 0
    const handoff = formHandoff()
    expect((await call(new McpOAuth(`${origin}/rest`, { store, handoff, fetch: observing }), `${origin}/rest`)).status).toBe(200)
    expect(handoff.urls).toHaveLength(1)
    expect(tokenRequests.map((request) => request.grant)).toEqual(['refresh_token', 'authorization_code'])
    expect(await store.getTokens(as.issuer, `${origin}/mcp`)).toEqual(before)
  })

  it('never tries the tokens of a server on another origin', async () => {
    const store = new FileTokenStore(join(dir, 'origins', 'tokens.json'))
    expect((await call(new McpOAuth(`${origin}/mcp`, { store, handoff: coveringHandoff(`${elsewhere}/mcp`), fetch: observing }), `${origin}/mcp`)).status).toBe(200)
    tokenRequests.length = 0
    const handoff = formHandoff()
    expect((await call(new McpOAuth(`${elsewhere}/mcp`, { store, handoff, fetch: observing }), `${elsewhere}/mcp`)).status).toBe(200)
    expect(handoff.urls).toHaveLength(1)
    expect(tokenRequests.map((request) => request.grant)).toEqual(['authorization_code'])
  })
})
