/**
 * Issue 28, item 2: our own CLI logs in on each protected endpoint of `mcp-auth start` (`/mcp`,
 * `/sse`, `/rest`), which it refused to do on `/sse` and `/rest` while their metadata named
 * `/mcp` (RFC 9728 §3.3), and lists the tools with the token it got on the endpoints its client
 * commands speak (Streamable HTTP at `/mcp`, JSON at `/rest`; the legacy HTTP+SSE transport at
 * `/sse` is not among them).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/chromium.js'
import { cliLoginInChromium } from '../helpers/cli-browser-login.js'
import { runCli, startMainJob } from '../helpers/cli-process.js'

const PASSWORD = 'every endpoint password'
let main: Awaited<ReturnType<typeof startMainJob>>
let browser: Browser
let dir: string

beforeAll(async () => {
  ;[main, browser, dir] = await Promise.all([startMainJob(PASSWORD, 'mcp-auth-every-endpoint-'), launchChromium(), mkdtemp(join(tmpdir(), 'mcp-auth-every-endpoint-client-'))])
}, 30_000)
afterAll(async () => {
  await browser?.close()
  await main?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

describe('mcp-auth login and tools on every endpoint of `start`', () => {
  it('logs in on /sse', async () => {
    const url = `${main.origin}/sse`
    const login = await cliLoginInChromium(browser, url, join(dir, 'tokens-sse.json'), { username: 'demo', password: PASSWORD })
    expect(login.code, login.stderr).toBe(0)
    expect(login.stdout).toContain(`logged in to ${url}`)
  }, 45_000)

  for (const path of ['/rest', '/mcp']) {
    it(`logs in on ${path} and lists the tools there`, async () => {
      const store = join(dir, `tokens${path.replace('/', '-')}.json`)
      const url = `${main.origin}${path}`
      const login = await cliLoginInChromium(browser, url, store, { username: 'demo', password: PASSWORD })
      expect(login.code, login.stderr).toBe(0)
      expect(login.stdout).toContain(`logged in to ${url}`)
      const tools = await runCli(['tools', url, '--no-browser', '--store', store])
      expect(tools.code, tools.stderr).toBe(0)
      expect(tools.stdout).toContain('whoami')
    }, 45_000)
  }
})
