import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { McpOAuth } from '../../../src/auth/client/mcp-oauth.js'
import { FileTokenStore } from '../../../src/auth/client/token-store.js'
import { McpClient } from '../../../src/client/index.js'
import { StreamableHttpClientTransport } from '../../../src/transports/http-client/index.js'
import type { RunningAuthServer } from '../../helpers/auth-server.js'
import type { ProtectedStack } from '../../helpers/protected-stack.js'
import { startUpstreamPair } from '../../helpers/upstream-pair.js'
import { formLogin } from '../../helpers/form-login.js'
import { dpopTokenRequest, storedDpopKey } from '../../helpers/dpop-stored-key.js'
import type { DpopKey } from '../../../src/auth/client/dpop.js'
import { storeText } from '../../helpers/store-contents.js'

/**
 * Delegated login: a second authorization server (oidc-provider with its own accounts and pages)
 * is the upstream identity provider; ours sends the user there and maps who comes back.
 */
let upstream: RunningAuthServer
let stack: ProtectedStack
let dir: string
let upstreamUserId: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-upstream-'))
  // Upstream access tokens live 2 s, so their expiry happens during the tests.
  ;({ upstream, stack, upstreamUserId } = await startUpstreamPair({
    user: { username: 'ursula', password: 'ursula password 1', claims: { name: 'Ursula Upstream', email: 'ursula@upstream.test' } },
    upstream: { ttl: { accessToken: 2 } },
    scopes: ['openid', 'profile', 'email'],
  }))
})
afterAll(async () => {
  await stack?.stop()
  await upstream?.stop(true)
  await rm(dir, { recursive: true, force: true })
})

describe('login delegated to an upstream identity provider', () => {
  it('logs the user in at the upstream provider, maps the identity, and the tool sees the mapped account', async () => {
    const pages: string[] = []
    const auth = new McpOAuth(`${stack.origin}/mcp`, {
      store: new FileTokenStore(join(dir, 'tokens.json')),
      async handoff(url) {
        const redirect = url.searchParams.get('redirect_uri')!
        const result = await formLogin(url, { username: 'ursula', password: 'ursula password 1', redirectUri: redirect })
        pages.push(...result.pages)
        await fetch(result.callback)
      },
    })
    const client = new McpClient({ name: 'delegation-test', version: '1' })
    await client.connect(new StreamableHttpClientTransport(`${stack.origin}/mcp`, { fetch: auth.fetch }))
    const result = await client.callTool('whoami', {})
    await client.close()
    // The upstream's login and consent, then ours (consent only: no local password form).
    expect(pages).toEqual(['login', 'consent', 'consent'])
    const identity = JSON.parse((result.content[0] as { text: string }).text) as { subject: string }
    const account = await stack.as.accounts.findById(identity.subject)
    expect(account).toMatchObject({
      username: 'ursula',
      claims: { name: 'Ursula Upstream', email: 'ursula@upstream.test' },
      upstream: { issuer: upstream.issuer, subject: upstreamUserId },
    })
    // The upstream tokens are kept, sealed: never in plain text in our data file.
    const file = await storeText(stack.dataDir)
    expect(file).toContain('upstream-tokens')
    expect(file).not.toMatch(/"access_token"/)
  })

  it('links the same upstream user to the same local account on a second login', async () => {
    const before = (await stack.as.accounts.list()).filter((account) => account.upstream !== undefined)
    const auth = new McpOAuth(`${stack.origin}/mcp`, {
      store: new FileTokenStore(join(dir, 'second.json')),
      async handoff(url) {
        const redirect = url.searchParams.get('redirect_uri')!
        const result = await formLogin(url, { username: 'ursula', password: 'ursula password 1', redirectUri: redirect })
        await fetch(result.callback)
      },
    })
    await auth.login()
    const after = (await stack.as.accounts.list()).filter((account) => account.upstream !== undefined)
    expect(after).toHaveLength(before.length)
  })

  it('shows an error page for a callback that did not start here', async () => {
    const response = await fetch(`${stack.origin}/upstream/callback?code=x&state=forged`)
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('did not start here')
  })

  /** A fresh delegated login; returns our refresh token, the client it belongs to and the key it is bound to. */
  async function login(name: string): Promise<{ refreshToken: string; clientId: string; dpop: DpopKey }> {
    const store = new FileTokenStore(join(dir, `${name}.json`))
    const auth = new McpOAuth(`${stack.origin}/mcp`, {
      store,
      async handoff(url) {
        const result = await formLogin(url, { username: 'ursula', password: 'ursula password 1', redirectUri: url.searchParams.get('redirect_uri')! })
        await fetch(result.callback)
      },
    })
    await auth.login()
    const saved = JSON.parse(await readFile(store.file, 'utf8')) as { clients: Record<string, { client_id: string }>; tokens: Record<string, { refresh_token: string }> }
    return { refreshToken: Object.values(saved.tokens)[0]!.refresh_token, clientId: Object.values(saved.clients)[0]!.client_id, dpop: await storedDpopKey(store.file) }
  }

  // the login helper's refresh token is DPoP-bound (our server offers DPoP): refreshed with its key
  const refresh = (session: { refreshToken: string; clientId: string; dpop: DpopKey }) =>
    dpopTokenRequest(`${stack.origin}/token`, new URLSearchParams({ grant_type: 'refresh_token', refresh_token: session.refreshToken, client_id: session.clientId }), session.dpop)

  async function introspect(token: string): Promise<{ active: boolean }> {
    const rs = await stack.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' })
    const response = await fetch(`${stack.origin}/token/introspection`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${rs.client_id}:${rs.client_secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    })
    return (await response.json()) as { active: boolean }
  }

  it('refreshes an expired upstream session without the user noticing', async () => {
    const session = await login('expiry')
    await new Promise((resolve) => setTimeout(resolve, 2_200))
    expect((await introspect(session.refreshToken)).active).toBe(true)
    const first = await refresh(session)
    expect(first.status).toBe(200)
    const { refresh_token } = (await first.json()) as { refresh_token: string }
    expect((await refresh({ ...session, refreshToken: refresh_token })).status).toBe(200)
  })

  it('ends our grant when the upstream grant was revoked: refresh fails, introspection says inactive', async () => {
    const session = await login('revoked')
    const { ConsentStore } = await import('../../../src/auth/server/stores/consent-store.js')
    const upstreamGrant = await new ConsentStore(upstream.as.storage.records).grantIdFor(upstreamUserId, 'our-as')
    expect(upstreamGrant).toBeDefined()
    for (const model of ['RefreshToken', 'AccessToken', 'AuthorizationCode']) await upstream.as.storage.adapter(model).revokeByGrantId(upstreamGrant!)
    await upstream.as.storage.adapter('Grant').destroy(upstreamGrant!)
    const refused = await refresh(session)
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant')
    expect((await introspect(session.refreshToken)).active).toBe(false)
  })

  it('answers temporarily_unavailable while the upstream is down, and loses nothing', async () => {
    const session = await login('outage')
    upstream.server.closeAllConnections()
    await new Promise((resolve) => upstream.server.close(resolve))
    const down = await refresh(session)
    expect(down.status).toBe(503)
    expect(((await down.json()) as { error: string }).error).toBe('temporarily_unavailable')
    // Our grant and refresh token are still there for when the upstream comes back.
    expect((await introspect(session.refreshToken)).active).toBe(true)
  })
})
