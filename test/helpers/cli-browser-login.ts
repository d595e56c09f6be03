import { spawn } from 'node:child_process'
import type { Browser } from 'playwright-core'
import { CLI_PATH } from './paths.js'

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
  const child = spawn(process.execPath, [CLI_PATH, 'login', url, '--no-browser', '--store', store], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  const authorizationUrl = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const match = /open this URL in a browser:\s+(\S+)/.exec(stderr)
      if (match) resolve(match[1]!)
    })
    child.once('exit', () => reject(new Error(`login exited early:\n${stderr}`)))
  })
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(authorizationUrl)
  await page.fill('#username', who.username)
  await page.fill('#password', who.password)
  await page.click('#sign-in')
  await page.waitForSelector('#allow')
  const consentText = (await page.textContent('main')) ?? ''
  await page.click('#allow')
  await page.waitForSelector('text=Signed in')
  await context.close()
  return { code: await exited, stdout, stderr, consentText }
}
