/**
 * The CLI's login waits (issue 15): the wait says what it is waiting for; Ctrl-C ends it cleanly
 * (the loopback listener closed, "login cancelled", exit code 130, no stack trace), and ends a
 * running tool call the same way; a login a tool call needs on the way (a step-up) does not count
 * against that call's timeout. Against `mcp-auth start` run as its own process; logins that
 * complete go through its pages in Chromium.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/chromium.js'
import { setTimeout as sleep } from 'node:timers/promises'
import { cliLoginInChromium, loginInChromium, spawnWaitingForLogin } from '../helpers/cli-browser-login.js'
import { spawnCliUntil, startMainJob } from '../helpers/cli-process.js'

const DEMO = { username: 'demo', password: 'login waits password 1' }
let main: Awaited<ReturnType<typeof startMainJob>>
let dir: string
let browser: Browser

beforeAll(async () => {
  main = await startMainJob(DEMO.password, 'mcp-auth-login-waits-')
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-login-waits-client-'))
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  await main?.stop()
  await rm(dir, { recursive: true, force: true })
})

/** The loopback listener a printed login URL sends the browser back to. */
function callbackOf(authorizationUrl: string): URL {
  return new URL(new URL(authorizationUrl).searchParams.get('redirect_uri')!)
}

describe('mcp-auth login waiting for the browser', () => {
  it('says what it waits for, and how long', async () => {
    const login = await spawnWaitingForLogin(['login', `${main.origin}/mcp`, '--no-browser', '--store', join(dir, 'says.json')])
    expect(login.stderr()).toContain('Waiting for the browser to come back from the login page (up to 5 min; Ctrl-C to give up)')
    login.child.kill('SIGINT')
    await login.exited
  })

  it('ends on Ctrl-C with "login cancelled" and exit code 130, its loopback listener closed, no stack trace', async () => {
    const login = await spawnWaitingForLogin(['login', `${main.origin}/mcp`, '--no-browser', '--store', join(dir, 'ctrl-c.json')])
    const callback = callbackOf(login.authorizationUrl)
    // the listener is up while the login waits (a path other than the callback's, so the wait goes on)
    expect((await fetch(new URL('/', callback))).status).toBe(404)
    login.child.kill('SIGINT')
    const { code, signal, stderr } = await login.exited
    expect(signal).toBeNull()
    expect(code).toBe(130)
    expect(stderr).toMatch(/^mcp-auth login: login cancelled$/m)
    expect(stderr).not.toMatch(/^\s+at /m)
    await expect(fetch(callback)).rejects.toThrow()
  })
})

describe('mcp-auth call', () => {
  it('ends a running tool call on Ctrl-C: the call cancelled, exit code 130, no stack trace', async () => {
    const store = join(dir, 'call-ctrl-c.json')
    expect((await cliLoginInChromium(browser, `${main.origin}/mcp`, store, DEMO)).code).toBe(0)
    const call = await spawnCliUntil(['call', `${main.origin}/mcp`, 'slow_count', '{"steps":600,"delayMs":100}', '--no-browser', '--store', store], /^progress 1\/600/m)
    call.child.kill('SIGINT')
    const { code, signal, stderr, stdout } = await call.exited
    expect(signal).toBeNull()
    expect(code).toBe(130)
    expect(stderr).toMatch(/^mcp-auth call: tools\/call was cancelled: interrupted$/m)
    expect(stderr).not.toMatch(/^\s+at /m)
    expect(stdout).toBe('')
  })
})

describe('mcp-auth call needing a step-up (403 insufficient_scope: admin_stats needs mcp:admin)', () => {
  /** A store logged in with the scope `mcp` only, so admin_stats asks for more. */
  async function storeWithoutAdmin(name: string): Promise<string> {
    const store = join(dir, `${name}.json`)
    const login = await cliLoginInChromium(browser, `${main.origin}/mcp`, store, DEMO)
    expect(login.stdout).toContain('(scope: mcp)')
    return store
  }

  it('does not count the browser login against the call timeout: a login slower than --timeout still ends in the result', async () => {
    const store = await storeWithoutAdmin('slow-step-up')
    const call = await spawnWaitingForLogin(['call', `${main.origin}/mcp`, 'admin_stats', '--timeout', '1', '--no-browser', '--store', store])
    await sleep(2_500) // the user takes longer than the call's timeout to sign in
    await loginInChromium(browser, call.authorizationUrl, DEMO)
    const { code, stdout, stderr } = await call.exited
    expect(stderr).not.toContain('timed out')
    expect(code, stderr).toBe(0)
    expect(stdout).toContain('uptimeSeconds')
  })

  it('keeps waiting for a step-up login past the call timeout, until Ctrl-C ends it with "login cancelled"', async () => {
    const store = await storeWithoutAdmin('abandoned-step-up')
    const call = await spawnWaitingForLogin(['call', `${main.origin}/mcp`, 'admin_stats', '--timeout', '1', '--no-browser', '--store', store])
    await sleep(2_000)
    expect(call.stderr()).not.toContain('timed out')
    expect(call.child.exitCode).toBeNull()
    call.child.kill('SIGINT')
    const { code, stderr } = await call.exited
    expect(code).toBe(130)
    expect(stderr).toMatch(/^mcp-auth call: login cancelled$/m)
    expect(stderr).not.toContain('timed out')
  })
})
