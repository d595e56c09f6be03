/**
 * Issue 28, item 14 (and the consent-page half of item 11): the consent page names the client (its
 * id in small print), describes each scope and resource, and says which requested scopes the
 * account may not have; Cancel and Deny sit beside the primary action; every page fits a 390 px
 * phone and a desktop without breaking a host name; the operator's branding (product name, logo,
 * colours) is on every page, the CSP allowing the logo's origin and nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import * as oidc from 'openid-client'
import { homePage } from '../../../src/app/home-page.js'
import { UNDESCRIBED_SCOPE } from '../../../src/auth/server/interactions/describe-scope.js'
import { launchChromium } from '../../helpers/chromium.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
/** A resource on a long host name: at 390 px it must wrap after the host, never inside it. */
const RESOURCE = 'https://team-tools.internal.example-company.com/mcp/v1'
const SCOPE_TEXT = { mcp: 'Read and update your tickets', 'mcp:admin': 'Run deployments', 'files:read': 'Read your files' }
const VIEWPORTS = [
  ['phone', { width: 390, height: 844 }],
  ['desktop', { width: 1280, height: 800 }],
] as const

let s: RunningAuthServer
let logoServer: RunningAuthServer
let browser: Browser
let branding: { productName: string; logoUrl: string; colors: { primary: string; background: string; text: string } }
/** Serves the redirect target, a logo at /logo.svg and the home page at /home/. */
let helper: Server
let helperOrigin: string
let shots: string
const arrived: URL[] = []

beforeAll(async () => {
  // the configuration file's example, as an operator would copy it
  const example = JSON.parse(await readFile(new URL('../../../config/auth-server.example.json', import.meta.url), 'utf8')) as { branding: typeof branding }
  branding = example.branding
  const svg = Buffer.from(branding.logoUrl.slice(branding.logoUrl.indexOf(',') + 1), 'base64')
  let serveHome: ReturnType<typeof homePage> | undefined
  helper = createServer((req, res) => {
    const url = new URL(req.url!, helperOrigin)
    if (url.pathname === '/logo.svg') return void res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(svg)
    if (url.pathname === '/callback') arrived.push(url)
    if (serveHome?.(req, res)) return
    res.setHeader('content-type', 'text/html')
    res.end('<!doctype html><title>done</title><p id="done">You can close this window.</p>')
  })
  await new Promise<void>((resolve) => helper.listen(0, '127.0.0.1', resolve))
  helperOrigin = `http://127.0.0.1:${(helper.address() as AddressInfo).port}`
  serveHome = homePage({ origin: helperOrigin, resource: `${helperOrigin}/mcp`, branding })
  ;[s, logoServer, browser, shots] = await Promise.all([
    startAuthServer({
      branding,
      resources: [
        {
          uri: RESOURCE,
          scopes: ['mcp', 'mcp:admin', 'files:read', 'tickets:export'],
          name: 'Team tools',
          description: 'Tickets, deployments and on-call notes',
          scopeDescriptions: SCOPE_TEXT,
        },
      ],
    }),
    startAuthServer({ branding: { productName: 'Logo from an origin', logoUrl: `${helperOrigin}/logo.svg` } }),
    launchChromium(),
    mkdtemp(join(tmpdir(), 'mcp-auth-pages-')),
  ])
  await s.as.accounts.setUser('lin', 'lin password 1', { name: 'Lin' }, ['mcp', 'mcp:admin', 'tickets:export'])
  await logoServer.as.accounts.setUser('lin', 'lin password 1')
}, 60_000)

afterAll(async () => {
  await browser?.close()
  helper?.closeAllConnections()
  await new Promise((resolve) => helper?.close(resolve))
  await Promise.all([s?.stop(true), logoServer?.stop(true)])
  // screenshots are for a person to look at: MCP_AUTH_KEEP_SCREENSHOTS=1 keeps them (the path is printed)
  if (process.env['MCP_AUTH_KEEP_SCREENSHOTS'] === undefined) await rm(shots, { recursive: true, force: true })
  else console.log(`screenshots in ${shots}`)
})

async function authorization(server: RunningAuthServer, scope: string, clientName?: string) {
  const config = await oidc.dynamicClientRegistration(
    new URL(server.issuer),
    {
      redirect_uris: [`${helperOrigin}/callback`],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      ...(clientName !== undefined ? { client_name: clientName } : {}),
    },
    oidc.None(),
    insecure,
  )
  const verifier = oidc.randomPKCECodeVerifier()
  const state = oidc.randomState()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: `${helperOrigin}/callback`,
    scope,
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  })
  return { config, verifier, state, url }
}

interface Measure {
  fits: boolean
  title: string
  product: string | undefined
  accent: string
  logoWidth: number | undefined
  /** How many boxes each `.host` is drawn in (1: on one line). */
  hostRects: number[]
  /** The boxes of the page's buttons, in document order. */
  buttons: Array<{ id: string; top: number; left: number; right: number; bottom: number }>
  mainRight: number
}

/** Run in the page (a string: the tests type-check without the DOM library). */
const MEASURE = `(() => {
  const logo = document.querySelector('header.brand img')
  return {
    fits: document.documentElement.scrollWidth <= window.innerWidth,
    title: document.title,
    product: document.querySelector('#product-name')?.textContent,
    accent: getComputedStyle(document.documentElement).getPropertyValue('--accent').trim(),
    logoWidth: logo === null ? undefined : logo.naturalWidth,
    hostRects: [...document.querySelectorAll('.host')].map((host) => host.getClientRects().length),
    buttons: [...document.querySelectorAll('button')].map((button) => {
      const box = button.getBoundingClientRect()
      return { id: button.id, top: box.top, left: box.left, right: box.right, bottom: box.bottom }
    }),
    mainRight: document.querySelector('main').getBoundingClientRect().right,
  }
})()`

/** A page's measure, with what every branded page must show: no overflow, the product, the logo, the colour. */
async function measure(page: Page, label: string, shot?: string): Promise<Measure> {
  const m = await page.evaluate<Measure>(MEASURE)
  if (shot !== undefined) await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true })
  expect(m.fits, `${label}: no horizontal overflow`).toBe(true)
  for (const button of m.buttons) expect(button.right, `${label}: #${button.id} inside the card`).toBeLessThanOrEqual(m.mainRight)
  expect(
    m.hostRects.every((count) => count === 1),
    `${label}: every host on one line (${m.hostRects.join(',')})`,
  ).toBe(true)
  return m
}

function branded(m: Measure, label: string): void {
  expect(m.product, label).toBe(branding.productName)
  expect(m.title, label).toContain(branding.productName)
  expect(m.accent, label).toBe(branding.colors.primary)
  expect(m.logoWidth, `${label}: the logo loaded`).toBeGreaterThan(0)
}

/** The two buttons sit on one row, the first (the primary action) left of the second. */
function oneRow(m: Measure, first: string, second: string, label: string): void {
  const a = m.buttons.find((button) => button.id === first)!
  const b = m.buttons.find((button) => button.id === second)!
  expect(Math.abs(a.top - b.top), `${label}: #${first} and #${second} on one row`).toBeLessThan(2)
  expect(a.right, `${label}: #${first} first`).toBeLessThanOrEqual(b.left)
}

async function newPage(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  const errors: string[] = []
  // an error page's own 4xx status is logged too: that one is expected, a CSP refusal never is
  page.on('console', (message) => message.type() === 'error' && !/responded with a status of 4\d\d/.test(message.text()) && errors.push(message.text()))
  page.on('requestfailed', (request) => errors.push(`failed: ${request.url()}`))
  return { context, page, errors }
}

async function signIn(page: Page): Promise<void> {
  await page.fill('#username', 'lin')
  await page.fill('#password', 'lin password 1')
  await page.click('#sign-in')
  await page.waitForSelector('#allow')
}

describe('the consent page', () => {
  it('names the client, its id in small print, and describes each scope and the resource', async () => {
    const { url } = await authorization(s, 'mcp mcp:admin tickets:export', 'Team Desktop')
    const { context, page } = await newPage({ width: 390, height: 844 })
    await page.goto(url.href)
    await signIn(page)
    expect(await page.textContent('h1')).toBe('Team Desktop')
    const clientId = (await page.textContent('#client-id'))!
    expect(clientId.length).toBeGreaterThanOrEqual(43)
    const size = (selector: string) => page.evaluate<number>(`parseFloat(getComputedStyle(document.querySelector(${JSON.stringify(selector)})).fontSize)`)
    expect(await size('#client-id')).toBeLessThan((await size('h1')) / 1.5)
    const scopes = (await page.locator('ul.scopes li').allTextContents()).join('\n')
    expect(scopes).toContain(SCOPE_TEXT.mcp)
    expect(scopes).toContain(SCOPE_TEXT['mcp:admin'])
    // a scope the configuration does not describe is said to be undescribed, not shown as a bare name
    expect(scopes).toMatch(new RegExp(`${UNDESCRIBED_SCOPE}\\s+tickets:export`))
    const resource = (await page.textContent('ul.resources'))!
    expect(resource).toContain('Team tools')
    expect(resource).toContain('Tickets, deployments and on-call notes')
    expect(resource.replace(/\s+/g, '')).toContain(RESOURCE)
    expect(await page.$('#not-granted')).toBeNull()
    await context.close()
  })

  it('calls a client without a name “An unnamed application”', async () => {
    const { url } = await authorization(s, 'mcp')
    const { context, page } = await newPage({ width: 1280, height: 800 })
    await page.goto(url.href)
    await signIn(page)
    expect(await page.textContent('h1')).toBe('An unnamed application')
    await context.close()
  })

  it('says which requested scopes the account may not have, and the grant goes ahead without them', async () => {
    const { config, verifier, state, url } = await authorization(s, 'mcp files:read', 'Team Desktop')
    const { context, page } = await newPage({ width: 390, height: 844 })
    await page.goto(url.href)
    await signIn(page)
    const notGranted = (await page.textContent('#not-granted'))!
    expect(notGranted).toContain('Not available to your account')
    expect(notGranted).toContain(`files:read (${SCOPE_TEXT['files:read']})`)
    expect((await page.locator('ul.scopes li').allTextContents()).join('\n')).not.toContain('files:read')
    await page.screenshot({ path: join(shots, 'consent-not-granted-phone.png'), fullPage: true })
    await page.click('#allow')
    await page.waitForSelector('#done')
    const callback = arrived.at(-1)!
    const tokens = await oidc.authorizationCodeGrant(
      config,
      callback,
      { pkceCodeVerifier: verifier, expectedState: state },
      { redirect_uri: `${helperOrigin}/callback`, resource: RESOURCE },
    )
    expect(tokens.scope?.split(' ')).toEqual(['mcp'])
    await context.close()
  })
})

describe('every page, at 390 px and at desktop width, in the operator’s branding', () => {
  it.each(VIEWPORTS)('login, consent, logout and signed-out fit a %s screen, actions on one row, hosts whole', async (label, viewport) => {
    const { url } = await authorization(s, 'mcp mcp:admin files:read', `Acme-${'VeryLongProductName'.repeat(4)}`)
    const { context, page, errors } = await newPage(viewport)
    await page.goto(url.href)
    await page.waitForSelector('#sign-in')
    const login = await measure(page, `login ${label}`, `login-${label}`)
    branded(login, `login ${label}`)
    oneRow(login, 'sign-in', 'cancel', `login ${label}`)
    expect(login.hostRects.length).toBe(1)
    await signIn(page)
    const consent = await measure(page, `consent ${label}`, `consent-${label}`)
    branded(consent, `consent ${label}`)
    oneRow(consent, 'allow', 'deny', `consent ${label}`)
    expect(consent.hostRects.length).toBe(1)
    await page.click('#allow')
    await page.waitForSelector('#done')
    await page.goto(`${s.issuer}/session/end`)
    await page.waitForSelector('#sign-out')
    const logout = await measure(page, `logout ${label}`, `logout-${label}`)
    branded(logout, `logout ${label}`)
    oneRow(logout, 'sign-out', 'stay', `logout ${label}`)
    await page.click('#sign-out')
    await expect.poll(() => page.title()).toContain('Signed out')
    branded(await measure(page, `signed out ${label}`), `signed out ${label}`)
    expect(errors).toEqual([])
    await context.close()
  })

  it.each(VIEWPORTS)('the error, home and loopback callback pages fit a %s screen', async (label, viewport) => {
    const { context, page, errors } = await newPage(viewport)
    await page.goto(`${s.issuer}/authorize?client_id=no-such-client&response_type=code&scope=mcp`)
    await expect.poll(() => page.title()).toContain('Error')
    branded(await measure(page, `error ${label}`), `error ${label}`)
    await page.goto(`${helperOrigin}/`)
    const home = await measure(page, `home ${label}`, `home-${label}`)
    branded(home, `home ${label}`)
    expect(await page.textContent('h1')).toBe(branding.productName)
    const { startLoopbackCallback } = await import('../../../src/auth/client/loopback-callback.js')
    const callback = await startLoopbackCallback({})
    await page.goto(`${callback.redirectUri}?code=abc&state=xyz`)
    await measure(page, `callback ${label}`)
    callback.close()
    await callback.result.catch(() => undefined)
    expect(errors).toEqual([])
    await context.close()
  })
})

describe('branding', () => {
  it('puts the escaped product name and colours in the page and allows images from the logo’s origin only', async () => {
    const { url } = await authorization(logoServer, 'mcp')
    const response = await fetch(url, { redirect: 'manual' })
    const login = await fetch(new URL(response.headers.get('location')!, logoServer.origin), {
      headers: {
        cookie: response.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; '),
      },
    })
    expect(login.headers.get('content-security-policy')).toContain(`img-src ${helperOrigin};`)
    const { context, page, errors } = await newPage({ width: 390, height: 844 })
    await page.goto(url.href)
    await page.waitForSelector('#sign-in')
    const m = await measure(page, 'login with a logo from an origin')
    expect(m.product).toBe('Logo from an origin')
    expect(m.logoWidth).toBeGreaterThan(0)
    expect(errors).toEqual([])
    await context.close()
    // the pages of a server with an inline logo allow data: images and no origin at all
    const inline = await authorization(s, 'mcp')
    const first = await fetch(inline.url, { redirect: 'manual' })
    const page2 = await fetch(new URL(first.headers.get('location')!, s.origin), {
      headers: {
        cookie: first.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; '),
      },
    })
    expect(page2.headers.get('content-security-policy')).toContain('img-src data:;')
    const html = await page2.text()
    expect(html).toContain(`:root { --accent: ${branding.colors.primary}; --on-accent: #fff; }`)
    expect(html).toContain(`:root { color-scheme: light; } body { background: ${branding.colors.background}; }body { color: ${branding.colors.text}; }`)
  })
})
