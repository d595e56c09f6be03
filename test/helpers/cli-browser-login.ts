import type { Browser, Page } from 'playwright-core'
import { spawnCliUntil, type SpawnedCli } from './cli-process.js'

/** A running `mcp-auth` command that has printed a login URL and waits for the browser. */
export interface WaitingCli extends SpawnedCli {
  /** The authorization URL it printed. */
  authorizationUrl: string
}

/**
 * Spawns `mcp-auth <args>` (with --no-browser among them) and resolves once it has printed the
 * login URL and says it is waiting for the browser.
 */
export async function spawnWaitingForLogin(args: string[]): Promise<WaitingCli> {
  const spawned = await spawnCliUntil(args, /open this URL in a browser:\s+(\S+)[\s\S]*Waiting for the browser/)
  return { ...spawned, authorizationUrl: spawned.match[1]! }
}

/** What a user does in the browser: the real login form, then the consent page. Returns the consent page's text. */
export async function loginInChromium(browser: Browser, authorizationUrl: string, who: { username: string; password: string }): Promise<string> {
  return inNewContext(browser, async (page) => {
    await submitLoginForm(page, authorizationUrl, who)
    await page.waitForSelector('#allow')
    const consentText = (await page.textContent('main')) ?? ''
    await page.click('#allow')
    await page.waitForSelector('text=Signed in')
    return consentText
  })
}

/**
 * Runs `mcp-auth login <url>` and completes the browser hand-off in Chromium from the URL it
 * prints: the real login form, then the consent page.
 */
export async function cliLoginInChromium(
  browser: Browser,
  url: string,
  store: string,
  who: { username: string; password: string },
): Promise<{ code: number | null; stdout: string; stderr: string; consentText: string }> {
  const login = await spawnWaitingForLogin(['login', url, '--no-browser', '--store', store])
  const consentText = await loginInChromium(browser, login.authorizationUrl, who)
  const { code, stdout, stderr } = await login.exited
  return { code, stdout, stderr, consentText }
}

/**
 * The login form in Chromium, and the consent page only if it comes (a client that holds a grant
 * for these scopes already is sent straight back).
 */
export async function signInInChromium(browser: Browser, authorizationUrl: string, who: { username: string; password: string }): Promise<void> {
  await inNewContext(browser, async (page) => {
    await submitLoginForm(page, authorizationUrl, who)
    await page.locator('#allow').or(page.getByText('Signed in')).first().waitFor()
    if (await page.locator('#allow').isVisible()) {
      await page.click('#allow')
      await page.waitForSelector('text=Signed in')
    }
  })
}

/** `step` on a page of a fresh browser context (no cookies of earlier logins), closed after it. */
async function inNewContext<T>(browser: Browser, step: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext()
  try {
    return await step(await context.newPage())
  } finally {
    await context.close()
  }
}

/** The authorization URL's login form, filled and submitted. */
async function submitLoginForm(page: Page, authorizationUrl: string, who: { username: string; password: string }): Promise<void> {
  await page.goto(authorizationUrl)
  await page.fill('#username', who.username)
  await page.fill('#password', who.password)
  await page.click('#sign-in')
}
