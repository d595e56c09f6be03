import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChildProcess } from 'node:child_process'
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { CLI_PATH } from '../helpers/paths.js'
import { launchChromium } from '../helpers/chromium.js'
import { cliLoginInChromium } from '../helpers/cli-browser-login.js'

let server: ChildProcess
let origin: string
let dir: string
let store: string
let browser: Browser

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-cli-login-'))
  store = join(dir, 'client', 'tokens.json')
  const started = await startCli(['start', '--port', '0', '--data-dir', join(dir, 'server')], { env: { MCP_AUTH_DEMO_PASSWORD: 'demo password 1' } })
  server = started.child
  origin = started.url
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  if (server) await stopChild(server)
  await rm(dir, { recursive: true, force: true })
})

function loginInChromium(): Promise<{ code: number | null; stdout: string }> {
  return cliLoginInChromium(browser, `${origin}/mcp`, store, { username: 'demo', password: 'demo password 1' })
}

describe('mcp-auth login / call / whoami / proxy against mcp-auth start', () => {
  it('logs in through the real pages in Chromium, stores the tokens 0600, then calls without logging in again', async () => {
    const login = await loginInChromium()
    expect(login.code).toBe(0)
    expect(login.stdout).toContain(`logged in to ${origin}/mcp`)
    expect((await stat(store)).mode & 0o777).toBe(0o600)
    // the server offers DPoP: the tokens are bound to a key kept beside them (issue 17); every
    // command below, the proxy included, presents them with proofs
    const stored = JSON.parse(await readFile(store, 'utf8')) as { tokens: Record<string, { token_type: string }>; dpopKeys: Record<string, unknown> }
    expect(Object.values(stored.tokens)[0]!.token_type.toLowerCase()).toBe('dpop')
    expect(Object.keys(stored.dpopKeys)).toEqual([origin])

    const call = await runCli(['call', `${origin}/mcp`, 'echo', '{"text":"hello from the CLI"}', '--no-browser', '--store', store])
    expect(call.code).toBe(0)
    expect(call.stdout).toContain('hello from the CLI')
    expect(call.stderr).not.toContain('To log in')

    const whoami = await runCli(['whoami', `${origin}/mcp`, '--store', store])
    expect(whoami.code).toBe(0)
    expect(whoami.stdout).toMatch(/^scope\s+mcp$/m)

    const tools = await runCli(['tools', `${origin}/mcp`, '--no-browser', '--store', store])
    expect(tools.stdout).toContain('whoami')
  })

  it('lets the official SDK stdio client list and call tools through mcp-auth proxy', async () => {
    const client = new Client({ name: 'sdk-stdio-host', version: '1.0.0' })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'proxy', `${origin}/mcp`, '--no-browser', '--store', store], stderr: 'pipe' }))
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toContain('echo')
      const result = await client.callTool({ name: 'echo', arguments: { text: 'through the proxy' } })
      expect(JSON.stringify(result.content)).toContain('through the proxy')
    } finally {
      await client.close()
    }
  })

  it('whoami says when the stored token expired; logout forgets it; both take the login options of every client command', async () => {
    const copy = join(dir, 'copy.json')
    await copyFile(store, copy)
    const saved = JSON.parse(await readFile(copy, 'utf8')) as { tokens: Record<string, { expires_at: number }> }
    for (const entry of Object.values(saved.tokens)) entry.expires_at = Math.floor(Date.now() / 1000) - 600
    await writeFile(copy, JSON.stringify(saved), { mode: 0o600 })
    const whoami = await runCli(['whoami', `${origin}/mcp`, '--store', copy])
    expect(whoami.stdout).toMatch(/^expires {2}\S+ \(expired 10 min ago\)$/m)

    const logout = await runCli(['logout', `${origin}/mcp`, '--store', copy])
    expect(logout.code, logout.stderr).toBe(0)
    expect(logout.stdout).toBe(`logged out of ${origin}/mcp\n`)
    const after = await runCli(['whoami', `${origin}/mcp`, '--store', copy])
    expect(after.code).toBe(1)
    expect(after.stderr).toContain(`not logged in to ${origin}/mcp`)

    for (const verb of ['whoami', 'logout']) {
      const help = await runCli([verb, '--help'])
      expect(help.stdout).toContain('--store')
      expect(help.stdout).toMatch(/--no-browser/)
      // issue 28: the same login options as every client command (`whoami --no-browser` was "Unknown option")
      const accepted = await runCli([verb, `${origin}/mcp`, '--store', join(dir, 'nobody.json'), '--no-browser'])
      expect(accepted.stderr).not.toContain('Unknown option')
      expect(accepted.code).toBe(verb === 'whoami' ? 1 : 0)
    }
  })

  it('fails with a clear message and exit code 1 when not logged in and the hand-off cannot finish', async () => {
    const whoami = await runCli(['whoami', `${origin}/mcp`, '--store', join(dir, 'nobody.json')])
    expect(whoami.code).toBe(1)
    expect(whoami.stderr).toContain('not logged in')
  })
})
