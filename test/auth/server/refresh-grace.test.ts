// Issue 13, item 4: a rotated refresh token is honoured at most once inside the grace window,
// and never forks the chain; a second reuse revokes the whole family.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as oidc from 'openid-client'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { authorizeWithForm } from '../../helpers/form-login.js'

const REDIRECT = 'http://127.0.0.1/callback'
const USER = { username: 'gina', password: 'gina password 1' }

let s: RunningAuthServer

beforeAll(async () => {
  s = await startAuthServer({ refreshTokens: { reuseGraceSeconds: 30 } })
  await s.as.accounts.setUser(USER.username, USER.password)
})
afterAll(() => s.stop(true))

async function login(): Promise<{ config: oidc.Configuration; refreshToken: string }> {
  const { config, callback, verifier } = await authorizeWithForm(s.issuer, USER, REDIRECT)
  const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })
  return { config, refreshToken: tokens.refresh_token! }
}

async function refresh(config: oidc.Configuration, refreshToken: string): Promise<{ ok: true; refreshToken: string } | { ok: false; error: string }> {
  try {
    const tokens = await oidc.refreshTokenGrant(config, refreshToken)
    return { ok: true, refreshToken: tokens.refresh_token! }
  } catch (error) {
    return { ok: false, error: String((error as { error?: string }).error) }
  }
}

describe('refresh-token grace window', () => {
  it('honours a rotated token once more, and the retry replaces the first successor instead of forking', async () => {
    const { config, refreshToken } = await login()
    const lost = await refresh(config, refreshToken)
    const retried = await refresh(config, refreshToken)
    expect(lost.ok && retried.ok).toBe(true)
    if (!lost.ok || !retried.ok) return
    // The successor of the lost response is dead; the retry's chain lives on.
    expect(await refresh(config, lost.refreshToken)).toMatchObject({ ok: false, error: 'invalid_grant' })
    const next = await refresh(config, retried.refreshToken)
    expect(next.ok).toBe(true)
  })

  it('refuses the second reuse and revokes the whole family: ten reuses never make ten chains', async () => {
    const { config, refreshToken } = await login()
    const first = await refresh(config, refreshToken)
    expect(first.ok).toBe(true)
    const reuses = []
    for (let i = 0; i < 10; i++) reuses.push(await refresh(config, refreshToken))
    expect(reuses.filter((result) => result.ok)).toHaveLength(1)
    expect(reuses[1]).toMatchObject({ ok: false, error: 'invalid_grant' })
    // The family is gone: no successor works any more.
    for (const result of [first, ...reuses]) {
      if (result.ok) expect(await refresh(config, result.refreshToken)).toMatchObject({ ok: false, error: 'invalid_grant' })
    }
  })

  it('honours at most one of several retries racing at the same moment', async () => {
    const { config, refreshToken } = await login()
    expect((await refresh(config, refreshToken)).ok).toBe(true)
    const racing = await Promise.all(Array.from({ length: 5 }, () => refresh(config, refreshToken)))
    expect(racing.filter((result) => result.ok).length).toBeLessThanOrEqual(1)
  })

  it('shows a rotated token as inactive at introspection, without using its grace', async () => {
    const { config, refreshToken } = await login()
    const rotated = await refresh(config, refreshToken)
    expect(rotated.ok).toBe(true)
    const rs = await s.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [] })
    const introspected = await fetch(`${s.origin}/token/introspection`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${rs.client_id}:${rs.client_secret}`).toString('base64')}` },
      body: new URLSearchParams({ token: refreshToken }),
    })
    expect(((await introspected.json()) as { active: boolean }).active).toBe(false)
    // The grace retry is still there for the client itself.
    expect((await refresh(config, refreshToken)).ok).toBe(true)
  })
})
