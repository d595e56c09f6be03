import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdir, stat } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import * as oidc from 'openid-client'
import { launchChromium } from '../../helpers/chromium.js'
import { REPO_ROOT } from '../../helpers/paths.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { pkcePair } from '../../helpers/pkce-pair.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const SCREENSHOTS = join(REPO_ROOT, 'test-output', 'screenshots')

let s: RunningAuthServer
let browser: Browser
/** The client's loopback redirect target: records what arrives and shows a plain page. */
let callbackServer: Server
let callbackOrigin: string
const arrived: URL[] = []

beforeAll(async () => {
  s = await startAuthServer()
  await s.as.accounts.setUser('grace', 'grace password 1', { name: 'Grace Hopper' })
  browser = await launchChromium()
  callbackServer = createServer((req, res) => {
    const url = new URL(req.url!, callbackOrigin)
    if (url.pathname === '/callback') arrived.push(url)
    res.setHeader('content-type', 'text/html')
    res.end('<!doctype html><title>done</title><p id="done">You can close this window.</p>')
  })
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve))
  callbackOrigin = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}`
  await mkdir(SCREENSHOTS, { recursive: true })
})

afterAll(async () => {
  await browser?.close()
  callbackServer?.closeAllConnections()
  await new Promise((resolve) => callbackServer?.close(resolve))
  await s?.stop(true)
})

async function startAuthorization(scope = 'mcp') {
  const config = await oidc.dynamicClientRegistration(
    new URL(s.issuer),
    { redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', client_name: 'Chromium Test Client', application_type: 'native' },
    oidc.None(),
    insecure,
  )
  const { verifier, challenge } = await pkcePair()
  const state = oidc.randomState()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: `${callbackOrigin}/callback`,
    scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })
  return { config, verifier, state, url }
}

describe('login and consent pages in Chromium', () => {
  it('fit a 390 px wide phone screen, long client names and ids wrapped, as at desktop width', async () => {
    const longName = `Acme-${'VeryLongProductName'.repeat(6)}`
    // a pre-registered client whose id is one long word, as a metadata document URL can be
    const longId = `acme-desktop-${'0123456789abcdef'.repeat(8)}`
    await s.as.addClient({
      client_id: longId,
      client_name: longName,
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })
    const config = await oidc.discovery(new URL(s.issuer), longId, undefined, oidc.None(), insecure)
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${callbackOrigin}/callback`,
      scope: 'mcp',
      state: oidc.randomState(),
      code_challenge: (await pkcePair()).challenge,
      code_challenge_method: 'S256',
    })
    for (const [label, viewport] of [
      ['phone', { width: 390, height: 844 }],
      ['desktop', { width: 1280, height: 800 }],
    ] as const) {
      const context = await browser.newContext({ viewport })
      const page = await context.newPage()
      await page.goto(url.href)
      await page.waitForSelector('#sign-in')
      const fits = () => page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')
      expect(await fits(), `login page at ${label} width`).toBe(true)
      await page.screenshot({ path: join(SCREENSHOTS, `login-${label}.png`), fullPage: true })
      await page.fill('#username', 'grace')
      await page.fill('#password', 'grace password 1')
      await page.click('#sign-in')
      await page.waitForSelector('#allow')
      expect(await page.textContent('main')).toContain(longName)
      expect(await page.textContent('main')).toContain(longId)
      expect(await fits(), `consent page at ${label} width`).toBe(true)
      await page.screenshot({ path: join(SCREENSHOTS, `consent-${label}.png`), fullPage: true })
      await context.close()
    }
  })

  it('shows the login helper’s loopback page in the same layout, within a phone screen', async () => {
    const { startLoopbackCallback } = await import('../../../src/auth/client/loopback-callback.js')
    const callback = await startLoopbackCallback({})
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } })
    const page = await context.newPage()
    const failures: string[] = []
    page.on('console', (message) => message.type() === 'error' && failures.push(message.text()))
    await page.goto(`${callback.redirectUri}?code=abc&state=xyz`)
    expect(await page.textContent('main h1')).toBe('Signed in')
    // the authorization server's stylesheet: the bordered card of its pages
    expect(await page.evaluate<string>("getComputedStyle(document.querySelector('main')).borderTopStyle")).toBe('solid')
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true)
    await page.screenshot({ path: join(SCREENSHOTS, 'cli-callback-phone.png'), fullPage: true })
    expect(failures).toEqual([])
    await context.close()
    callback.close()
    await callback.result.catch(() => undefined)
  })

  it('signs in, shows the client, redirect host, scopes and resource, and returns a code', async () => {
    const { config, verifier, state, url } = await startAuthorization('mcp offline_access')
    const context = await browser.newContext()
    const page = await context.newPage()
    const failures: string[] = []
    page.on('requestfailed', (request) => failures.push(request.url()))
    page.on('console', (message) => message.type() === 'error' && failures.push(message.text()))
    await page.goto(url.href)
    await expect.poll(() => page.title()).toContain('Sign in')
    expect(await page.textContent('main')).toContain('Chromium Test Client')
    await page.screenshot({ path: join(SCREENSHOTS, 'login.png') })
    await page.fill('#username', 'grace')
    await page.fill('#password', 'grace password 1')
    await page.click('#sign-in')
    await page.waitForSelector('#allow')
    const consentText = (await page.textContent('main'))!
    expect(consentText).toContain('Chromium Test Client')
    expect(consentText).toContain(`127.0.0.1:${new URL(callbackOrigin).port}`)
    expect(consentText).toContain('mcp')
    expect(consentText).toContain('Stay signed in')
    expect(consentText).toContain(`${s.origin}/mcp`)
    expect(consentText).toContain('grace')
    await page.screenshot({ path: join(SCREENSHOTS, 'consent.png') })
    await page.click('#allow')
    await page.waitForSelector('#done')
    const callback = arrived.at(-1)!
    expect(callback.searchParams.get('state')).toBe(state)
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, { redirect_uri: `${callbackOrigin}/callback` })
    expect(tokens.access_token).toBeTypeOf('string')
    expect(tokens.refresh_token).toBeTypeOf('string')
    // No external assets, no script errors, nothing blocked by the pages' CSP.
    expect(failures).toEqual([])
    expect((await stat(join(SCREENSHOTS, 'consent.png'))).size).toBeGreaterThan(1000)
    await context.close()
  })

  it('shows the error again on a wrong password, and Deny sends access_denied', async () => {
    const { url } = await startAuthorization()
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(url.href)
    await page.fill('#username', 'grace')
    await page.fill('#password', 'not the password')
    await page.click('#sign-in')
    await expect.poll(async () => page.textContent('.error')).toContain('Wrong username or password')
    await page.fill('#password', 'grace password 1')
    await page.click('#sign-in')
    await page.waitForSelector('#deny')
    await page.click('#deny')
    await page.waitForSelector('#done')
    expect(arrived.at(-1)!.searchParams.get('error')).toBe('access_denied')
    await context.close()
  })

  it('sets session cookies HttpOnly and SameSite=Lax', async () => {
    const { url } = await startAuthorization()
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(url.href)
    await page.fill('#username', 'grace')
    await page.fill('#password', 'grace password 1')
    await page.click('#sign-in')
    await page.waitForSelector('#allow')
    const cookies = await context.cookies()
    expect(cookies.length).toBeGreaterThan(0)
    for (const cookie of cookies) {
      expect(cookie.httpOnly, cookie.name).toBe(true)
      expect(cookie.sameSite, cookie.name).toBe('Lax')
    }
    await context.close()
  })
})
