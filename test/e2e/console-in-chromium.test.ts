import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { runCli, spawnCliUntil, startCli, stopChild } from '../helpers/cli-process.js'
import { launchChromium } from '../helpers/chromium.js'
import { cliLoginInChromium, loginInChromium } from '../helpers/cli-browser-login.js'
import { REPO_ROOT } from '../helpers/paths.js'

// Issue 32: the console and people's own page, end to end in Chromium against `mcp-auth start`.
const SHOTS = join(REPO_ROOT, 'test-output', 'console')
const AXE = join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js')

let server: ChildProcess
let origin: string
let dir: string
let setupLink: string
let browser: Browser
const root = { username: 'root', password: 'root password 1' }
const nina = { username: 'nina', password: 'nina password 1' }

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true })
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-console-'))
  const started = await startCli(['start', '--port', '0', '--data-dir', join(dir, 'server')], { env: { MCP_AUTH_DEMO_PASSWORD: 'demo password 1' } })
  server = started.child
  origin = started.url
  for (let i = 0; i < 100 && !/\/admin\/setup\//.test(started.output()); i++) await new Promise((resolve) => setTimeout(resolve, 50))
  setupLink = /(http\S+\/admin\/setup\/[A-Za-z0-9_-]{43})/.exec(started.output())![1]!
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  if (server) await stopChild(server)
  await rm(dir, { recursive: true, force: true })
})

/** A browser context of its own; CSP bypassed only so that axe can be injected (the CSP itself is tested over HTTP). */
async function context(): Promise<{ context: BrowserContext; page: Page }> {
  const created = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } })
  return { context: created, page: await created.newPage() }
}

/** axe-core on the page: no serious or critical violation; then screenshots at 1280 and 390 px. */
async function check(page: Page, name: string): Promise<void> {
  await page.addScriptTag({ path: AXE })
  const violations = (await page.evaluate(async () => {
    const result = await (globalThis as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> } }).axe.run()
    return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, nodes: violation.nodes.length }))
  })) as Array<{ id: string; impact: string }>
  expect(
    violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical'),
    name,
  ).toEqual([])
  await page.setViewportSize({ width: 1280, height: 900 })
  await page.screenshot({ path: join(SHOTS, `${name}-1280.png`), fullPage: true })
  await page.setViewportSize({ width: 390, height: 844 })
  // nothing wider than a phone's screen (tables scroll inside their own box)
  expect((await page.evaluate('document.documentElement.scrollWidth')) as number, `${name} at 390 px`).toBeLessThanOrEqual(390)
  await page.screenshot({ path: join(SHOTS, `${name}-390.png`), fullPage: true })
  await page.setViewportSize({ width: 1280, height: 900 })
}

/** The id of the element that has the keyboard focus. */
const activeId = async (page: Page): Promise<string> => (await page.evaluate("document.activeElement?.id ?? ''")) as string

async function signIn(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.fill('#username', who.username)
  await page.fill('#password', who.password)
  await page.click('#sign-in')
}

describe('the console and people’s own page in Chromium', () => {
  it('creates the first administrator from the setup link, who signs in, creates an account, disables and enables it and gets its set-password link', async () => {
    const { context: admin, page } = await context()
    await page.goto(setupLink)
    await check(page, 'setup')
    await page.fill('#username', root.username)
    await page.fill('#password', root.password)
    await page.fill('#confirm', root.password)
    await page.click('#create-admin')
    await page.waitForSelector('#admin-created')

    await page.goto(`${origin}/admin`)
    await signIn(page, root)
    await page.waitForSelector('h1:text("Overview")')
    await check(page, 'overview')

    await page.goto(`${origin}/admin/accounts`)
    await page.fill('#new-username', nina.username)
    await page.click('#create')
    // no password given: the one-time set-password link, shown once
    const link = await page.inputValue('#link')
    expect(link).toMatch(new RegExp(`^${origin}/admin/password/`))
    await check(page, 'password-link')
    await page.goto(`${origin}/admin/accounts/nina`)
    await page.click('#disable')
    await page.waitForSelector('#state:text("disabled")')
    await page.click('#enable')
    await page.waitForSelector('#state:text("active")')
    await check(page, 'account')
    await page.goto(`${origin}/admin/accounts?q=nin`)
    expect(await page.textContent('main')).toContain('nina')
    await check(page, 'accounts')
    for (const [path, name] of [
      ['/admin/clients', 'clients'],
      ['/admin/clients/mcp-auth-console', 'client'],
      ['/admin/resources', 'resources'],
      ['/admin/keys', 'keys'],
    ] as const) {
      await page.goto(`${origin}${path}`)
      await check(page, name)
    }

    // nina sets her password through the link, in a browser of her own
    const { context: own, page: hers } = await context()
    await hers.goto(link)
    await check(hers, 'set-password')
    await hers.fill('#password', nina.password)
    await hers.fill('#confirm', nina.password)
    await hers.click('#set')
    await hers.waitForSelector('#password-set')
    await own.close()
    await admin.close()
  })

  it('the new account logs in with the CLI; the administrator revokes that grant and the next call needs a new login', async () => {
    const store = join(dir, 'nina-tokens.json')
    const login = await cliLoginInChromium(browser, `${origin}/mcp`, store, nina)
    expect(login.code).toBe(0)
    const call = await runCli(['call', `${origin}/mcp`, 'echo', '{"text":"hi"}', '--no-browser', '--store', store])
    expect(call.code).toBe(0)
    expect(call.stdout).toContain('hi')

    const { context: admin, page } = await context()
    await page.goto(`${origin}/admin/accounts/nina`)
    await signIn(page, root)
    const revoke = page.locator('main table button', { hasText: 'Revoke' })
    expect(await revoke.count()).toBe(1)
    await revoke.click()
    await page.waitForSelector('text=Grant ended.')
    await admin.close()

    const again = await spawnCliUntil(['call', `${origin}/mcp`, 'echo', '{"text":"again"}', '--no-browser', '--store', store], /open this URL in a browser:\s+(\S+)/)
    // the login it needs, done: the call then goes through (a new grant, for the page below)
    await loginInChromium(browser, again.match[1]!, nina)
    const done = await again.exited
    expect(done.code).toBe(0)
    expect(done.stdout).toContain('again')
  })

  it('nina revokes the CLI from her own page; changing her password ends her other session', async () => {
    const { context: first, page } = await context()
    await page.goto(`${origin}/account`)
    await signIn(page, nina)
    await page.waitForSelector('h2:text("Applications you allowed")')
    await check(page, 'people-page')
    const revoke = page.locator('main table button', { hasText: 'Revoke' })
    expect(await revoke.count()).toBe(1)
    await revoke.click()
    await page.waitForSelector('text=Access ended')
    expect(await page.locator('main table button', { hasText: 'Revoke' }).count()).toBe(0)

    const { context: second, page: other } = await context()
    await other.goto(`${origin}/account`)
    await signIn(other, nina)
    await other.waitForSelector('h2:text("Applications you allowed")')
    await new Promise((resolve) => setTimeout(resolve, 1_100))

    await page.fill('#current', nina.password)
    await page.fill('#password', 'nina password 2')
    await page.fill('#confirm', 'nina password 2')
    await page.click('#change')
    await page.waitForSelector('text=Password changed')
    await page.reload()
    await page.waitForSelector('h2:text("Applications you allowed")')

    await other.reload()
    await other.waitForSelector('#sign-in')
    await first.close()
    await second.close()
  })

  it('creates an account with the keyboard alone', async () => {
    const { context: admin, page } = await context()
    await page.goto(`${origin}/admin/accounts`)
    await signIn(page, root)
    await page.waitForSelector('#new-username')
    let focused = ''
    for (let presses = 0; presses < 40 && focused !== 'new-username'; presses++) {
      await page.keyboard.press('Tab')
      focused = await activeId(page)
    }
    expect(focused).toBe('new-username')
    await page.keyboard.type('kbd')
    await page.keyboard.press('Tab')
    expect(await activeId(page)).toBe('new-password')
    await page.keyboard.type('kbd password 1')
    await page.keyboard.press('Tab')
    expect(await activeId(page)).toBe('new-name')
    await page.keyboard.press('Tab')
    expect(await activeId(page)).toBe('create')
    await page.screenshot({ path: join(SHOTS, 'keyboard-focus-1280.png') })
    await page.keyboard.press('Enter')
    await page.waitForSelector('h1:text("kbd")')
    await admin.close()
  })
})
