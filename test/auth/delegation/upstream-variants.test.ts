import { afterEach, describe, expect, it } from 'vitest'
import { McpOAuth } from '../../../src/auth/client/mcp-oauth.js'
import type { TokenStore } from '../../../src/auth/client/token-store.js'
import { createMemoryStorage } from '../../../src/storage/memory-storage.js'
import { formLogin } from '../../helpers/form-login.js'
import { startUpstreamPair, upstreamRefreshTokenCount } from '../../helpers/upstream-pair.js'

/** An in-memory token store for one test. */
function memoryStore(): TokenStore {
  const records = createMemoryStorage().records
  const key = (issuer: string, resource: string) => JSON.stringify([issuer, resource])
  return {
    getClient: (issuer) => records.get('clients', issuer),
    setClient: (issuer, client) => records.put('clients', issuer, client),
    getTokens: (issuer, resource) => records.get('tokens', key(issuer, resource)),
    setTokens: (issuer, resource, tokens) => records.put('tokens', key(issuer, resource), tokens),
    deleteTokens: (issuer, resource) => records.delete('tokens', key(issuer, resource)),
    list: async () => [],
    exclusive: (fn) => fn(),
  }
}

const pairs: Array<{ stop(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(pairs.splice(0).map((pair) => pair.stop()))
})

describe('delegation variants', () => {
  it('works with a provider configured by endpoints (no discovery) and private_key_jwt client authentication', async () => {
    const pair = await startUpstreamPair({ user: { username: 'nina', password: 'nina password 1' }, clientAuth: 'private_key_jwt', noDiscovery: true })
    pairs.push(pair)
    const auth = new McpOAuth(`${pair.stack.origin}/mcp`, {
      store: memoryStore(),
      async handoff(url) {
        const result = await formLogin(url, { username: 'nina', password: 'nina password 1', redirectUri: url.searchParams.get('redirect_uri')! })
        await fetch(result.callback)
      },
    })
    await auth.login()
    const linked = (await pair.stack.as.accounts.list()).find((account) => account.upstream?.subject === pair.upstreamUserId)
    expect(linked?.username).toBe('nina')
  })

  it('reports a refusal at the upstream provider to the MCP client as access_denied', async () => {
    const pair = await startUpstreamPair({ user: { username: 'otto', password: 'otto password 1' } })
    pairs.push(pair)
    const auth = new McpOAuth(`${pair.stack.origin}/mcp`, {
      store: memoryStore(),
      async handoff(url) {
        const result = await formLogin(url, { username: 'otto', password: 'otto password 1', consent: 'deny', redirectUri: url.searchParams.get('redirect_uri')! })
        await fetch(result.callback)
      },
    })
    await expect(auth.login()).rejects.toThrow(/access_denied/)
  })

  it('revoking our refresh token revokes the upstream session too', async () => {
    const pair = await startUpstreamPair({ user: { username: 'pia', password: 'pia password 1' } })
    pairs.push(pair)
    const store = memoryStore()
    const auth = new McpOAuth(`${pair.stack.origin}/mcp`, {
      store,
      async handoff(url) {
        const result = await formLogin(url, { username: 'pia', password: 'pia password 1', redirectUri: url.searchParams.get('redirect_uri')! })
        await fetch(result.callback)
      },
    })
    await auth.login()
    const upstreamRefreshTokens = await upstreamRefreshTokenCount(pair)
    expect(await upstreamRefreshTokens()).toBe(1)
    const tokens = (await store.getTokens(pair.stack.origin, `${pair.stack.origin}/mcp`))!
    const client = (await store.getClient(pair.stack.origin))!
    const revoked = await fetch(`${pair.stack.origin}/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: client.client_id }),
    })
    expect(revoked.status).toBe(200)
    await expect.poll(upstreamRefreshTokens, { timeout: 5_000 }).toBe(0)
  })

  it('a second login with remembered consent moves the grant to the new upstream session', async () => {
    const pair = await startUpstreamPair({ user: { username: 'rita', password: 'rita password 1' } })
    pairs.push(pair)
    const store = memoryStore()
    const pages: string[] = []
    const auth = new McpOAuth(`${pair.stack.origin}/mcp`, {
      store,
      async handoff(url) {
        const result = await formLogin(url, { username: 'rita', password: 'rita password 1', redirectUri: url.searchParams.get('redirect_uri')! })
        pages.push(...result.pages)
        await fetch(result.callback)
      },
    })
    await auth.login()
    const { ConsentStore } = await import('../../../src/auth/server/stores/consent-store.js')
    const account = (await pair.stack.as.accounts.list()).find((candidate) => candidate.upstream?.subject === pair.upstreamUserId)!
    const client = (await store.getClient(pair.stack.origin))!
    const ourGrant = (await new ConsentStore(pair.stack.as.storage.records).grantIdFor(account.id, client.client_id))!
    const session = () => pair.stack.as.storage.records.get<{ sessionId: string }>('upstream-tokens', `grant:${ourGrant}`)
    const before = (await session())!.sessionId
    // The user logs in again (a new browser): the same client, whose consent is remembered here.
    await auth.login()
    expect(pages.filter((page) => page === 'login')).toHaveLength(2)
    expect((await session())!.sessionId).not.toBe(before)
  })
})
