/**
 * The CLI as a new user meets it (issue 15): a valid stored token is used while the authorization
 * server is down; an expired one then fails with a message naming the authorization server and
 * why; `call` shows a tool's progress and logs on stderr; `token` prints the token for scripts;
 * `whoami` names the account and says when the token expires. The authorization server and the
 * MCP server run apart (as in production), the login goes through Chromium.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProtectedMcpApp } from '../../src/app/protected-mcp-app.js'
import { createDemoServer } from '../../src/demo/demo-server.js'
import { startAuthServer, type RunningAuthServer } from '../helpers/auth-server.js'
import { launchChromium } from '../helpers/chromium.js'
import { cliLoginInChromium, signInInChromium, spawnWaitingForLogin } from '../helpers/cli-browser-login.js'
import { runCli, runCliOnTerminal } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'

const DEMO = { username: 'ada', password: 'ada password 1' }
let browser: Browser
let as: RunningAuthServer
let mcpServer: Server
let mcpUrl: string
let store: string
let asHost: string

beforeAll(async () => {
  browser = await launchChromium()
  const mcpPort = await freePort()
  mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`
  as = await startAuthServer({ resources: [{ uri: mcpUrl, scopes: ['mcp'] }] })
  asHost = new URL(as.origin).host
  await as.as.accounts.setUser(DEMO.username, DEMO.password)
  store = join(as.dataDir, 'cli-tokens.json')
  const mcp = createProtectedMcpApp(createDemoServer(), { host: '127.0.0.1', origin: `http://127.0.0.1:${mcpPort}`, issuer: as.issuer, requiredScopes: ['mcp'] })
  mcpServer = createServer(mcp.handler)
  await new Promise<void>((resolve) => mcpServer.listen(mcpPort, '127.0.0.1', resolve))
  const login = await cliLoginInChromium(browser, mcpUrl, store, DEMO)
  expect(login.code, login.stderr).toBe(0)
})
afterAll(async () => {
  await browser?.close()
  mcpServer?.closeAllConnections()
  await new Promise((resolve) => mcpServer?.close(resolve))
  await as?.stop(true)
})

describe('the CLI against a protected server whose authorization server runs apart', () => {
  it('words an OAuth refusal as the authorization server did: the error and its description', async () => {
    // a second server naming the same authorization server, which does not know it
    const port = await freePort()
    const unknown = createProtectedMcpApp(createDemoServer(), { host: '127.0.0.1', origin: `http://127.0.0.1:${port}`, issuer: as.issuer, requiredScopes: ['mcp'] })
    const listener = createServer(unknown.handler)
    await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve))
    try {
      const login = await spawnWaitingForLogin(['login', `http://127.0.0.1:${port}/mcp`, '--no-browser', '--store', join(as.dataDir, 'unknown.json')])
      // what a browser does: the authorization endpoint sends it straight back with the error
      const refused = await fetch(login.authorizationUrl, { redirect: 'manual' })
      await (await fetch(new URL(refused.headers.get('location')!, login.authorizationUrl))).text()
      const { code, stderr } = await login.exited
      expect(code).toBe(1)
      expect(stderr).toContain(`${as.issuer} answered invalid_target: `)
      expect(stderr).toContain(`http://127.0.0.1:${port}/mcp`)
    } finally {
      listener.closeAllConnections()
      await new Promise((resolve) => listener.close(resolve))
    }
  })

  it('shows the progress and log messages of a tool on stderr, the result on stdout', async () => {
    const { code, stdout, stderr } = await runCli(['call', mcpUrl, 'test_tool_with_progress', '--no-browser', '--store', store])
    expect(code, stderr).toBe(0)
    expect(stderr).toMatch(/^progress 0\/100/m)
    expect(stderr).toMatch(/^progress 100\/100/m)
    expect(JSON.parse(stdout)).toMatchObject({ content: expect.any(Array) })
    const logs = await runCli(['call', mcpUrl, 'test_tool_with_logging', '--no-browser', '--store', store])
    expect(logs.stderr).toMatch(/^\[info\]/m)
  })

  it('shows progress on a terminal as one bar rewritten in place, even when the terminal does not say its width', async () => {
    const { code, output } = await runCliOnTerminal(['call', mcpUrl, 'test_tool_with_progress', '--no-browser', '--store', store])
    expect(code, output).toBe(0)
    expect(output).toContain('\r\x1b[2K[....................] progress 0/100')
    expect(output).toContain('\r\x1b[2K[####################] progress 100/100')
    // the bar ends its line before the result
    expect(output).toMatch(/progress 100\/100[^\n]*\r?\n\{/)
  })

  it('prints a Bearer token with token, kept beside the bound one of the other commands, and names the account with whoami', async () => {
    // the server's metadata lists DPoP: the login's tokens are bound (a proof of the stored key on
    // every request); a script cannot send proofs, so token logs in once for a Bearer token of its
    // own (issue 28), and the second run prints the kept one without a login
    const bound = JSON.parse(await readFile(store, 'utf8')) as { tokens: Record<string, { token_type: string }> }
    expect(Object.values(bound.tokens).map((tokens) => tokens.token_type.toLowerCase())).toEqual(['dpop'])
    const waiting = await spawnWaitingForLogin(['token', mcpUrl, '--no-browser', '--store', store])
    await signInInChromium(browser, waiting.authorizationUrl, DEMO)
    const first = await waiting.exited
    expect(first.code, first.stderr).toBe(0)
    const token = await runCli(['token', mcpUrl, '--no-browser', '--store', store])
    expect(token.code, token.stderr).toBe(0)
    expect(token.stdout).toBe(first.stdout)
    const stored = JSON.parse(await readFile(store, 'utf8')) as { tokens: Record<string, { access_token: string; token_type: string }> }
    expect(stored.tokens[JSON.stringify([as.issuer, `${mcpUrl}#bearer`])]).toMatchObject({ access_token: token.stdout.trim(), token_type: expect.stringMatching(/^bearer$/i) })
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token.stdout.trim()}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    })
    expect(response.status).toBe(200)
    const whoami = await runCli(['whoami', mcpUrl, '--store', store])
    expect(whoami.stdout).toMatch(/^account {2}ada$/m)
    expect(whoami.stdout).toMatch(/^expires {2}\S+ \(in \d+ min\)$/m)
  })

  it('uses a valid stored token while the authorization server is down; an expired one fails naming it', async () => {
    // once with the authorization server up, so the MCP server has its keys
    expect((await runCli(['call', mcpUrl, 'echo', '{"text":"up"}', '--no-browser', '--store', store])).code).toBe(0)
    as.server.closeAllConnections()
    await new Promise<void>((resolve) => as.server.close(() => resolve()))

    const call = await runCli(['call', mcpUrl, 'echo', '{"text":"as is down"}', '--no-browser', '--store', store])
    expect(call.stderr).toBe('')
    expect(call.code).toBe(0)
    expect(call.stdout).toContain('as is down')

    // the same token, marked expired in the store: now the authorization server is needed
    const saved = JSON.parse(await readFile(store, 'utf8')) as { tokens: Record<string, { expires_at: number }> }
    for (const entry of Object.values(saved.tokens)) entry.expires_at = Math.floor(Date.now() / 1000) - 60
    await writeFile(store, JSON.stringify(saved), { mode: 0o600 })
    const expired = await runCli(['call', mcpUrl, 'echo', '{"text":"x"}', '--no-browser', '--store', store])
    expect(expired.code).toBe(1)
    expect(expired.stderr).toContain(`the authorization server ${as.issuer} is unreachable: connection refused (${asHost})`)
    expect(expired.stderr).not.toContain('fetch failed')
  })
})
