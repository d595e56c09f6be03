import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { REPO_ROOT } from './paths.js'

/** mcp-remote's proxy (the stdio bridge desktop clients run), as installed among the devDependencies. */
export const MCP_REMOTE = join(REPO_ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js')

/** What mcp-remote wrote to its stdout: one JSON-RPC message per line. */
export interface McpRemoteMessage {
  id?: number | string
  /** Set on the server's own requests and notifications. */
  method?: string
  params?: Record<string, unknown>
  result?: Record<string, unknown>
  error?: unknown
}

/**
 * mcp-remote for `url` as a child process, its config dir in `configDir`, and a reader of its
 * stdout's JSON-RPC lines and of its stderr. Its browser opener (the `open` package's xdg-open,
 * which honours BROWSER) runs `true` instead of a browser: the test drives the authorization URL
 * it prints (`authorizationUrl()`) in Chromium.
 */
export function startMcpRemote(url: string, callbackPort: number, args: string[], configDir: string) {
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
  const message = (what: string, matches: (message: McpRemoteMessage) => boolean) =>
    until(what, () =>
      stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as McpRemoteMessage)
        .find(matches),
    )
  // a response has no method: the server's own requests may carry the same ids as ours
  const response = (id: number) => message(`a response to request ${id}`, (candidate) => candidate.id === id && candidate.method === undefined)
  const request = (method: string) => message(`a ${method} request from the server`, (candidate) => candidate.method === method && candidate.id !== undefined)
  return {
    child,
    stderr: () => stderr,
    authorizationUrl: () => until('an authorization URL', () => /Please authorize this client by visiting:\s+(\S+)/.exec(stderr)?.[1]),
    connected: () => until('the proxy', () => (/Proxy established successfully/.test(stderr) ? true : undefined)),
    send: (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`),
    response,
    /** The first request `method` the server sent through mcp-remote (for the test to answer with `send`). */
    request,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      })
    },
  }
}

/**
 * The user in the browser for mcp-remote: our login form, then the consent page, until
 * mcp-remote's loopback callback on `callbackPort` is reached. Returns both pages' text.
 */
export async function mcpRemoteLoginInChromium(
  browser: Browser,
  authorizationUrl: string,
  callbackPort: number,
  who: { username: string; password: string },
): Promise<{ loginText: string; consentText: string }> {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await page.goto(authorizationUrl)
    const loginText = (await page.textContent('main')) ?? ''
    await page.fill('#username', who.username)
    await page.fill('#password', who.password)
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
