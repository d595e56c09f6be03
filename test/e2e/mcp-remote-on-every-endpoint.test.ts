/**
 * Issue 28, item 2: mcp-remote 0.15 (a peer client, unmodified) logs in on `/sse` (legacy HTTP+SSE,
 * `--transport sse-only`) and on `/mcp` of a real `mcp-auth start`, which it refused to do while
 * `/sse`'s metadata named `/mcp` (RFC 9728 §3.3), then proxies `initialize` and `tools/list`
 * over its stdio. It runs as a child process with its config dir in a temp dir; its browser
 * opener (the `open` package's xdg-open, which honours BROWSER) runs `true` instead of a browser,
 * and the authorization URL it prints is driven in our Chromium through the real pages.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/chromium.js'
import { startMainJob } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'
import { REPO_ROOT } from '../helpers/paths.js'

const PASSWORD = 'mcp-remote demo password'
const MCP_REMOTE = join(REPO_ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js')

let main: Awaited<ReturnType<typeof startMainJob>>
let browser: Browser
let configDir: string

beforeAll(async () => {
  ;[main, browser, configDir] = await Promise.all([startMainJob(PASSWORD, 'mcp-auth-mcp-remote-'), launchChromium(), mkdtemp(join(tmpdir(), 'mcp-remote-config-'))])
}, 30_000)
afterAll(async () => {
  await browser?.close()
  await main?.stop()
  if (configDir !== undefined) await rm(configDir, { recursive: true, force: true })
})

/** mcp-remote for `url`, and a reader of its stdout's JSON-RPC lines and of its stderr. */
function startMcpRemote(url: string, callbackPort: number, args: string[]) {
  const { DISPLAY: _display, WAYLAND_DISPLAY: _wayland, ...env } = process.env
  const child = spawn(process.execPath, [MCP_REMOTE, url, String(callbackPort), ...args], {
    env: { ...env, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: 'true' },
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams
  let stderr = ''
  let stdout = ''
  const waiters: Array<() => void> = []
  const wake = (): void => {
    for (const waiter of waiters.splice(0)) waiter()
  }
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
    wake()
  })
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    wake()
  })
  child.on('exit', wake)
  const until = async <T>(what: string, read: () => T | undefined, timeoutMs = 30_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = read()
      if (value !== undefined) return value
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`mcp-remote exited before ${what}:\n${stderr}`)
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms:\n${stderr}`)
      await new Promise<void>((resolve) => {
        waiters.push(resolve)
        setTimeout(resolve, 500)
      })
    }
  }
  const response = (id: number) =>
    until(`a response to request ${id}`, () =>
      stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { id?: number; result?: Record<string, unknown>; error?: unknown })
        .find((message) => message.id === id),
    )
  return {
    child,
    stderr: () => stderr,
    authorizationUrl: () => until('an authorization URL', () => /Please authorize this client by visiting:\s+(\S+)/.exec(stderr)?.[1]),
    connected: () => until('the proxy', () => (/Proxy established successfully/.test(stderr) ? true : undefined)),
    send: (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`),
    response,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      })
    },
  }
}

/** The user in the browser: our login form, then the consent page, until mcp-remote's callback answers. */
async function loginInChromium(authorizationUrl: string, callbackPort: number): Promise<{ loginText: string; consentText: string }> {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await page.goto(authorizationUrl)
    const loginText = (await page.textContent('main')) ?? ''
    await page.fill('#username', 'demo')
    await page.fill('#password', PASSWORD)
    await page.click('#sign-in')
    await page.waitForSelector('#allow')
    const consentText = (await page.textContent('main')) ?? ''
    await page.click('#allow')
    await page.waitForURL((url) => url.port === String(callbackPort), { timeout: 15_000 })
    return { loginText, consentText }
  } finally {
    await context.close()
  }
}

describe('mcp-remote against `mcp-auth start`', () => {
  for (const [path, transport] of [
    ['/sse', 'sse-only'],
    ['/mcp', 'http-only'],
  ] as const) {
    it(`logs in on ${path} (--transport ${transport}) and lists the tools through its stdio`, async () => {
      const callbackPort = await freePort()
      const remote = startMcpRemote(`${main.origin}${path}`, callbackPort, ['--transport', transport])
      try {
        const authorizationUrl = new URL(await remote.authorizationUrl())
        // the login is for the endpoint it was given: its own resource identifier
        expect(authorizationUrl.searchParams.get('resource')).toBe(`${main.origin}${path}`)
        const { loginText, consentText } = await loginInChromium(authorizationUrl.href, callbackPort)
        // one server on the pages: the endpoint the client asked for, not the other identifiers
        for (const text of [loginText, consentText]) {
          expect(text).toContain(`${main.origin}${path}`)
          for (const other of ['/mcp', '/sse', '/rest'].filter((endpoint) => endpoint !== path)) expect(text).not.toContain(`${main.origin}${other}`)
        }
        await remote.connected()
        remote.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } })
        const initialized = await remote.response(1)
        expect(initialized.error, remote.stderr()).toBeUndefined()
        expect(initialized.result?.['serverInfo']).toBeDefined()
        remote.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
        remote.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })
        const listed = await remote.response(2)
        const tools = (listed.result?.['tools'] ?? []) as Array<{ name: string }>
        expect(tools.map((tool) => tool.name)).toContain('whoami')
      } finally {
        await remote.stop()
      }
    }, 60_000)
  }
})
