// Issue 13, item 8: /session/end is our page (CSP, frame-ancestors 'none', no script, no
// autofocus), signing out takes the user's own form, and template values are substituted once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as oidc from 'openid-client'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { CookieJar, formLogin } from '../../helpers/form-login.js'
import { pkcePair } from '../../helpers/pkce-pair.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const REDIRECT = 'http://127.0.0.1/callback'
const USER = { username: 'ivy', password: 'ivy password 1' }

let s: RunningAuthServer

beforeAll(async () => {
  s = await startAuthServer()
  await s.as.accounts.setUser(USER.username, USER.password)
})
afterAll(() => s.stop(true))

async function authorizationUrl(config: oidc.Configuration): Promise<URL> {
  const { challenge } = await pkcePair()
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'mcp',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })
}

/** Whether the browser session is alive: a new authorization then needs no login page. */
async function loggedIn(config: oidc.Configuration, jar: CookieJar): Promise<boolean> {
  const { pages } = await formLogin(await authorizationUrl(config), { ...USER, redirectUri: REDIRECT, jar })
  return !pages.includes('login')
}

async function logoutPage(jar: CookieJar): Promise<{ response: Response; html: string }> {
  const url = new URL(`${s.origin}/session/end`)
  const response = await fetch(url, { headers: { cookie: jar.header(url) } })
  jar.store(response, url)
  return { response, html: await response.text() }
}

describe('the logout page', () => {
  it('is served with the pages’ CSP, frame-ancestors none and no script, autofocus or external asset', async () => {
    const jar = new CookieJar()
    const config = await oidc.dynamicClientRegistration(new URL(s.issuer), { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
    await formLogin(await authorizationUrl(config), { ...USER, redirectUri: REDIRECT, jar })
    const { response, html } = await logoutPage(jar)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(html).not.toMatch(/<script|autofocus|@import|https?:\/\/fonts/i)
    expect(html).toContain('id="sign-out"')
  })

  it('does not sign out on a post without the form’s own token (a cross-site form), and does with it', async () => {
    const jar = new CookieJar()
    const config = await oidc.dynamicClientRegistration(new URL(s.issuer), { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
    await formLogin(await authorizationUrl(config), { ...USER, redirectUri: REDIRECT, jar })
    expect(await loggedIn(config, jar)).toBe(true)
    const { html } = await logoutPage(jar)
    const action = new URL(/action="([^"]+)"/.exec(html)![1]!, s.origin)
    const forged = await fetch(action, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(action), 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ logout: 'yes' }),
    })
    expect(forged.status).toBeGreaterThanOrEqual(400)
    expect(await loggedIn(config, jar)).toBe(true)
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1]!
    const real = await fetch(action, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(action), 'content-type': 'application/x-www-form-urlencoded', origin: s.origin },
      body: new URLSearchParams({ xsrf, logout: 'yes' }),
    })
    jar.store(real, action)
    expect(real.status).toBeLessThan(400)
    expect(await loggedIn(config, jar)).toBe(false)
  })
})

describe('page templates', () => {
  it('shows a client name containing {{csrf}} as text, not as the form token', async () => {
    const config = await oidc.dynamicClientRegistration(
      new URL(s.issuer),
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'Evil {{csrf}} {{{abortAction}}}' },
      oidc.None(),
      insecure,
    )
    const url = await authorizationUrl(config)
    const jar = new CookieJar()
    let response = await fetch(url, { redirect: 'manual' })
    jar.store(response)
    const page = new URL(response.headers.get('location')!, url)
    response = await fetch(page, { headers: { cookie: jar.header(page) } })
    const html = await response.text()
    expect(html).toContain('Evil {{csrf}} {{{abortAction}}}')
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!
    expect(html.split(csrf).length - 1).toBe(2)
  })
})
