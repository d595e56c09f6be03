// Issue 13, item 11: after an upstream revocation, a login in the same browser goes to the
// upstream again; grants of one upstream login share its tokens, so one client's refresh never
// leaves another holding a rotated-away upstream token; the cascade's error names the upstream.
import { afterEach, describe, expect, it } from 'vitest'
import * as oidc from 'openid-client'
import { startUpstreamPair } from '../../helpers/upstream-pair.js'
import { CookieJar, formLogin } from '../../helpers/form-login.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const REDIRECT = 'http://127.0.0.1/callback'
const USER = { username: 'vera', password: 'vera password 1' }
type Pair = Awaited<ReturnType<typeof startUpstreamPair>>

const pairs: Pair[] = []
afterEach(async () => {
  for (const pair of pairs.splice(0)) await pair.stop()
})

async function start(): Promise<Pair> {
  // The upstream takes any reuse of a rotated refresh token as theft at once (no grace).
  const pair = await startUpstreamPair({ user: USER, upstream: { refreshTokens: { reuseGraceSeconds: 0 } } })
  pairs.push(pair)
  return pair
}

async function authorize(pair: Pair, jar: CookieJar, scope = 'mcp'): Promise<{ config: oidc.Configuration; refreshToken: string; pages: string[]; scope: string }> {
  const config = await oidc.dynamicClientRegistration(new URL(pair.stack.origin), { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
  const verifier = oidc.randomPKCECodeVerifier()
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' })
  const { callback, pages } = await formLogin(url, { ...USER, redirectUri: REDIRECT, jar })
  const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })
  return { config, refreshToken: tokens.refresh_token!, pages, scope: tokens.scope ?? '' }
}

async function refresh(client: { config: oidc.Configuration; refreshToken: string }): Promise<{ ok: boolean; error?: string; description?: string }> {
  try {
    const tokens = await oidc.refreshTokenGrant(client.config, client.refreshToken)
    client.refreshToken = tokens.refresh_token!
    return { ok: true }
  } catch (error) {
    const { error: code, error_description: description } = error as { error?: string; error_description?: string }
    return { ok: false, ...(code !== undefined ? { error: code } : {}), ...(description !== undefined ? { description } : {}) }
  }
}

async function upstreamGrant(pair: Pair): Promise<string | undefined> {
  const { ConsentStore } = await import('../../../src/auth/server/stores/consent-store.js')
  const grantId = await new ConsentStore(pair.upstream.as.storage.records).grantIdFor(pair.upstreamUserId, 'our-as')
  return grantId === undefined || (await pair.upstream.as.provider.Grant.find(grantId)) === undefined ? undefined : grantId
}

async function revokeUpstream(pair: Pair): Promise<void> {
  const grantId = (await upstreamGrant(pair))!
  for (const model of ['RefreshToken', 'AccessToken', 'AuthorizationCode']) await pair.upstream.as.storage.adapter(model).revokeByGrantId(grantId)
  await pair.upstream.as.storage.adapter('Grant').destroy(grantId)
}

describe('delegated login after an upstream revocation', () => {
  it('says the upstream ended the session, and a new login in the same browser goes to the upstream again', async () => {
    const pair = await start()
    const jar = new CookieJar()
    const first = await authorize(pair, jar)
    expect(first.pages).toContain('login')
    await revokeUpstream(pair)
    const cascaded = await refresh(first)
    expect(cascaded).toMatchObject({ ok: false, error: 'invalid_grant' })
    expect(cascaded.description).toMatch(/identity provider ended the session/)
    expect(await upstreamGrant(pair)).toBeUndefined()
    // Our browser session is still alive, yet the user is sent to the upstream again (still signed
    // in there, so it asks for consent anew: its grant to us was revoked), then to our consent…
    const again = await authorize(pair, jar)
    expect(again.pages).toEqual(['consent', 'consent'])
    expect(await upstreamGrant(pair)).toBeDefined()
    // …and the new grant stands on the new upstream session.
    expect((await refresh(again)).ok).toBe(true)
    expect((await refresh(again)).ok).toBe(true)
  })
})

describe('several clients of one upstream login', () => {
  it("never hands a client an upstream refresh token another client's refresh has rotated away", async () => {
    const pair = await start()
    const jar = new CookieJar()
    const a = await authorize(pair, jar)
    expect((await refresh(a)).ok).toBe(true)
    // Client B is authorised later in the same browser: no upstream login this time.
    const b = await authorize(pair, jar)
    expect(b.pages).not.toContain('login')
    expect(await refresh(b)).toEqual({ ok: true })
    expect(await refresh(a)).toEqual({ ok: true })
    expect(await refresh(b)).toEqual({ ok: true })
  })

  it('refreshes the shared upstream session once when two clients refresh at the same moment', async () => {
    const pair = await start()
    const jar = new CookieJar()
    const a = await authorize(pair, jar)
    const b = await authorize(pair, jar)
    const both = await Promise.all([refresh(a), refresh(b)])
    expect(both).toEqual([{ ok: true }, { ok: true }])
    expect(await refresh(a)).toEqual({ ok: true })
  })
})

describe('scopes of accounts from an upstream login (accountScopes)', () => {
  it('gives the account the scopes its upstream claim maps to, at every login', async () => {
    // Issue 13, item 2 (delegated logins): the account decides, mapped from the upstream's claims.
    const pair = await startUpstreamPair({
      user: { ...USER, claims: { email: 'vera@admins.test' } },
      scopes: ['openid', 'email'],
      accountScopes: { claim: 'email', map: { 'vera@admins.test': ['mcp', 'mcp:admin'] }, default: ['mcp'] },
    })
    pairs.push(pair)
    const admin = await authorize(pair, new CookieJar(), 'mcp mcp:admin')
    expect(admin.scope.split(' ').sort()).toEqual(['mcp', 'mcp:admin'])
    // The upstream changes the claim: the next login narrows the account.
    await pair.upstream.as.accounts.setUser(USER.username, USER.password, { email: 'vera@users.test' })
    const narrowed = await authorize(pair, new CookieJar(), 'mcp mcp:admin')
    expect(narrowed.scope).toBe('mcp')
    const account = (await pair.stack.as.accounts.list()).find((candidate) => candidate.upstream?.subject === pair.upstreamUserId)
    expect(account?.scopes).toEqual(['mcp'])
  })
})
