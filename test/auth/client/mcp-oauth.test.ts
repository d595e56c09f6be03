import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm, stat, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { McpOAuth } from '../../../src/auth/client/mcp-oauth.js'
import { FileTokenStore } from '../../../src/auth/client/token-store.js'
import { McpClient } from '../../../src/client/index.js'
import { StreamableHttpClientTransport } from '../../../src/transports/http-client/index.js'
import type { ChildProcess } from 'node:child_process'
import { startCli, stopChild } from '../../helpers/cli-process.js'
import { formLogin } from '../../helpers/form-login.js'

/** End to end against `mcp-auth start` (the main job), run as its own process. */
let server: ChildProcess
let stack: { origin: string }
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-client-'))
  const started = await startCli(['start', '--port', '0', '--data-dir', join(dir, 'server')], { env: { MCP_AUTH_DEMO_PASSWORD: 'demo password 1' } })
  server = started.child
  stack = { origin: started.url }
})
afterAll(async () => {
  if (server) await stopChild(server)
  await rm(dir, { recursive: true, force: true })
})

/** A hand-off that drives our login and consent pages like a user would, and counts itself. */
function formHandoff() {
  const handoff = Object.assign(
    async (url: URL) => {
      handoff.calls += 1
      // The callback server is ours: let the form flow follow the redirect into it.
      const redirect = url.searchParams.get('redirect_uri')!
      const { callback } = await formLogin(url, { username: 'demo', password: 'demo password 1', redirectUri: redirect })
      await fetch(callback)
    },
    { calls: 0 },
  )
  return handoff
}

/** A fetch that counts token endpoint requests. */
function countingFetch() {
  const counter = Object.assign(
    async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input))
      const response = await fetch(input, init)
      // a DPoP nonce challenge (400 use_dpop_nonce, retried at once with the nonce) is not a second refresh
      if (url.pathname === '/token') {
        if (response.status === 400 && response.headers.has('dpop-nonce')) counter.nonceChallenges += 1
        else counter.tokenRequests += 1
      }
      return response
    },
    { tokenRequests: 0, nonceChallenges: 0 },
  )
  return counter
}

async function callTool(auth: McpOAuth, name: string) {
  const client = new McpClient({ name: 'oauth-test', version: '1' })
  await client.connect(new StreamableHttpClientTransport(`${stack.origin}/mcp`, { fetch: auth.fetch }))
  try {
    return await client.callTool(name, {})
  } finally {
    await client.close()
  }
}

describe('McpOAuth against mcp-auth start', () => {
  it('is not ended by a stray request to its callback with another state (issue 28): the login completes', async () => {
    const store = new FileTokenStore(join(dir, 'stray', 'tokens.json'))
    const form = formHandoff()
    const handoff = async (url: URL) => {
      const stray = await fetch(`${url.searchParams.get('redirect_uri')!}?code=stray&state=not-this-login`)
      expect(stray.status).toBe(400)
      await form(url)
    }
    const result = await callTool(new McpOAuth(`${stack.origin}/mcp`, { store, handoff }), 'whoami')
    expect(result.isError).not.toBe(true)
    expect(form.calls).toBe(1)
  })

  it('turns the first 401 into a login, calls the tool, and keeps the tokens in a 0600 file', async () => {
    const store = new FileTokenStore(join(dir, 'first', 'tokens.json'))
    const handoff = formHandoff()
    const auth = new McpOAuth(`${stack.origin}/mcp`, { store, handoff, clientName: 'test client' })
    const result = await callTool(auth, 'whoami')
    expect(handoff.calls).toBe(1)
    const identity = JSON.parse((result.content[0] as { text: string }).text) as { username: string; scopes: string[]; clientId: string }
    expect(identity.scopes).toEqual(['mcp'])
    // the demo's whoami tool names the account, not only its subject (issue 15)
    expect(identity.username).toBe('demo')
    expect((await stat(store.file)).mode & 0o777).toBe(0o600)
    const saved = JSON.parse(await readFile(store.file, 'utf8'))
    expect(Object.values(saved.clients as Record<string, { source: string }>)[0]!.source).toBe('dynamic')
    // A second client process (a new instance on the same store) does not log in again.
    const again = new McpOAuth(`${stack.origin}/mcp`, { store, handoff })
    await callTool(again, 'whoami')
    expect(handoff.calls).toBe(1)
  })

  it('refreshes an expired access token once when ten calls race', async () => {
    const store = new FileTokenStore(join(dir, 'race', 'tokens.json'))
    const handoff = formHandoff()
    await callTool(new McpOAuth(`${stack.origin}/mcp`, { store, handoff }), 'whoami')
    // Make the stored access token look expired.
    const saved = JSON.parse(await readFile(store.file, 'utf8'))
    for (const tokens of Object.values(saved.tokens as Record<string, { expires_at: number }>)) tokens.expires_at = Math.floor(Date.now() / 1000) - 10
    await writeFile(store.file, JSON.stringify(saved), { mode: 0o600 })
    const counting = countingFetch()
    const auth = new McpOAuth(`${stack.origin}/mcp`, { store, handoff, fetch: counting as typeof fetch })
    const results = await Promise.all(Array.from({ length: 10 }, () => callTool(auth, 'whoami')))
    expect(results.every((result) => result.isError !== true)).toBe(true)
    expect(counting.tokenRequests).toBe(1)
    expect(handoff.calls).toBe(1)
  })

  it('logs in again when the refresh token has been revoked', async () => {
    const store = new FileTokenStore(join(dir, 'revoked', 'tokens.json'))
    const handoff = formHandoff()
    await callTool(new McpOAuth(`${stack.origin}/mcp`, { store, handoff }), 'whoami')
    const saved = JSON.parse(await readFile(store.file, 'utf8'))
    const [clientId] = Object.values(saved.clients as Record<string, { client_id: string }>).map((c) => c.client_id)
    const tokens = Object.values(saved.tokens as Record<string, { refresh_token: string; expires_at: number }>)[0]!
    const revoked = await fetch(`${stack.origin}/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: clientId! }),
    })
    expect(revoked.status).toBe(200)
    // The access token is refused from now on (as if expired): the client must refresh, and cannot.
    ;(tokens as { access_token?: string }).access_token = 'refused-token'
    await writeFile(store.file, JSON.stringify(saved), { mode: 0o600 })
    await callTool(new McpOAuth(`${stack.origin}/mcp`, { store, handoff }), 'whoami')
    expect(handoff.calls).toBe(2)
  })

  it('ends a login waiting for the browser when its signal aborts: "login cancelled", the loopback listener closed', async () => {
    const controller = new AbortController()
    let redirectUri = ''
    const auth = new McpOAuth(`${stack.origin}/mcp`, {
      store: new FileTokenStore(join(dir, 'cancelled', 'tokens.json')),
      signal: controller.signal,
      handoff: (url) => {
        redirectUri = url.searchParams.get('redirect_uri')!
        setTimeout(() => controller.abort(new Error('interrupted')), 100)
      },
    })
    await expect(auth.login()).rejects.toMatchObject({ name: 'McpOAuthError', code: 'cancelled', message: 'login cancelled' })
    expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    await expect(fetch(redirectUri)).rejects.toThrow()
  })

  it('steps up on 403 insufficient_scope: re-authorizes with the wider scope and retries', async () => {
    const store = new FileTokenStore(join(dir, 'step-up', 'tokens.json'))
    const handoff = formHandoff()
    const auth = new McpOAuth(`${stack.origin}/mcp`, { store, handoff })
    const result = await callTool(auth, 'admin_stats')
    expect(JSON.stringify(result.content)).toContain('uptimeSeconds')
    expect(handoff.calls).toBe(2)
    const saved = JSON.parse(await readFile(store.file, 'utf8'))
    expect(
      Object.values(saved.tokens as Record<string, { scope: string }>)[0]!
        .scope.split(' ')
        .sort(),
    ).toEqual(['mcp', 'mcp:admin'])
  })

  it('with loginOutsideFetch, hands a refusal that needs a login back (401, then 403 insufficient_scope) and runs that login on loginAsked()', async () => {
    const store = new FileTokenStore(join(dir, 'outside', 'tokens.json'))
    const handoff = formHandoff()
    const auth = new McpOAuth(`${stack.origin}/mcp`, { store, handoff, loginOutsideFetch: true })
    await expect(callTool(auth, 'admin_stats')).rejects.toMatchObject({ name: 'HttpTransportError', status: 401 })
    expect(handoff.calls).toBe(0)
    expect(await auth.loginAsked()).toBe(true)
    expect(handoff.calls).toBe(1)
    await expect(callTool(auth, 'admin_stats')).rejects.toMatchObject({ name: 'HttpTransportError', status: 403 })
    expect(await auth.loginAsked()).toBe(true)
    expect(await auth.loginAsked()).toBe(false)
    expect(handoff.calls).toBe(2)
    expect(JSON.stringify((await callTool(auth, 'admin_stats')).content)).toContain('uptimeSeconds')
  })
})
