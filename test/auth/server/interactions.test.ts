import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as oidc from 'openid-client'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { CookieJar } from '../../helpers/form-login.js'
import { pkcePair } from '../../helpers/pkce-pair.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
let s: RunningAuthServer

beforeAll(async () => {
  s = await startAuthServer()
  await s.as.accounts.setUser('heidi', 'heidi password 1')
})
afterAll(() => s.stop(true))

/** Starts an authorization and stops at the login page: its URL, form fields and cookies. */
async function loginPage() {
  const config = await oidc.dynamicClientRegistration(
    new URL(s.issuer),
    { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none', client_name: '<script>alert(1)</script>' },
    oidc.None(),
    insecure,
  )
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: 'http://127.0.0.1/cb',
    scope: 'mcp',
    code_challenge: (await pkcePair()).challenge,
    code_challenge_method: 'S256',
  })
  const jar = new CookieJar()
  const first = await fetch(url, { redirect: 'manual' })
  jar.store(first)
  const pageUrl = new URL(first.headers.get('location')!, s.origin)
  const page = await fetch(pageUrl, { headers: { cookie: jar.header() } })
  const html = await page.text()
  return { jar, pageUrl, html, page, csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]! }
}

describe('interaction pages', () => {
  it('serve HTML with a strict CSP, no framing, no caching, and escape client-supplied text', async () => {
    const { page, html } = await loginPage()
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(html).not.toContain('<script>')
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;')
  })

  it('refuse a form post without the CSRF token', async () => {
    const { jar, pageUrl } = await loginPage()
    const response = await fetch(`${pageUrl.href}/login`, {
      method: 'POST',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'heidi', password: 'heidi password 1', csrf: 'forged' }),
      redirect: 'manual',
    })
    expect(response.status).toBe(403)
    expect(await response.text()).toContain('the form has expired or was not sent by this page')
  })

  it('refuse a cross-origin form post even with a valid token', async () => {
    const { jar, pageUrl, csrf } = await loginPage()
    const response = await fetch(`${pageUrl.href}/login`, {
      method: 'POST',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ username: 'heidi', password: 'heidi password 1', csrf }),
      redirect: 'manual',
    })
    expect(response.status).toBe(403)
    expect(await response.text()).toContain('cross-origin form submission refused')
  })

  it('refuse a form post from a browser that did not start the interaction', async () => {
    const { pageUrl, csrf } = await loginPage()
    const response = await fetch(`${pageUrl.href}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'heidi', password: 'heidi password 1', csrf }),
      redirect: 'manual',
    })
    expect(response.status).toBe(400)
    expect(response.headers.get('location')).toBeNull()
    expect(await response.text()).toContain('Start again from the application')
  })

  it('answer 413 to an oversized form and 415 to a non-form body', async () => {
    const { jar, pageUrl, csrf } = await loginPage()
    const big = await fetch(`${pageUrl.href}/login`, {
      method: 'POST',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, username: 'x'.repeat(100_000), password: 'p' }),
    })
    expect(big.status).toBe(413)
    const json = await fetch(`${pageUrl.href}/login`, { method: 'POST', headers: { cookie: jar.header(), 'content-type': 'application/json' }, body: '{}' })
    expect(json.status).toBe(415)
  })

  it('answer 405 with Allow to other methods', async () => {
    const { pageUrl } = await loginPage()
    const response = await fetch(`${pageUrl.href}/login`, { method: 'GET' })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
  })
})
