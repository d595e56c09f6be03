/**
 * Every protected endpoint of `mcp-auth start` can be logged in to (its challenge names resource
 * metadata whose `resource` is that endpoint, RFC 9728 §3.3), and one login serves them all: the
 * CLI, holding tokens for one endpoint, gets tokens for another of the same server by refreshing
 * for it (RFC 8707 §2.2) at the authorization server, with no browser.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/chromium.js'
import { cliLoginInChromium } from '../helpers/cli-browser-login.js'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'

const who = { username: 'demo', password: 'demo password 1' }
let server: ChildProcess
let origin: string
let dir: string
let browser: Browser

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-one-login-'))
  const started = await startCli(['start', '--port', '0', '--data-dir', join(dir, 'server')], { env: { MCP_AUTH_DEMO_PASSWORD: who.password } })
  server = started.child
  origin = started.url
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  if (server) await stopChild(server)
  await rm(dir, { recursive: true, force: true })
})

async function storedResources(store: string): Promise<string[]> {
  const data = JSON.parse(await readFile(store, 'utf8')) as { tokens: Record<string, unknown> }
  return Object.keys(data.tokens).map((key) => (JSON.parse(key) as [string, string])[1])
}

describe('one login for every endpoint of mcp-auth start', () => {
  it.each(['/mcp', '/sse', '/rest'])('a login on %s serves the two other endpoints without a browser', async (first) => {
    const store = join(dir, `tokens-${first.slice(1)}.json`)
    const login = await cliLoginInChromium(browser, `${origin}${first}`, store, who)
    expect(login.stderr).not.toMatch(/refuse|does not name/i)
    expect(login.code).toBe(0)
    expect(login.stdout).toContain(`logged in to ${origin}${first}`)
    for (const path of ['/mcp', '/sse', '/rest']) {
      const call = await runCli(['call', `${origin}${path}`, 'echo', JSON.stringify({ text: `via ${path}` }), '--no-browser', '--store', store])
      // no second login: a login would print its URL and wait for a browser that never comes
      expect(call.stderr).not.toContain('open this URL')
      expect(call.code).toBe(0)
      expect(call.stdout).toContain(`via ${path}`)
    }
    expect((await storedResources(store)).sort()).toEqual([`${origin}/mcp`, `${origin}/rest`, `${origin}/sse`])
  })
})
