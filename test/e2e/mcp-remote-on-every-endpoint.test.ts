/**
 * Issue 28, item 2: mcp-remote 0.15 (a peer client, unmodified) logs in on `/sse` (legacy HTTP+SSE,
 * `--transport sse-only`) and on `/mcp` of a real `mcp-auth start`, which it refused to do while
 * `/sse`'s metadata named `/mcp` (RFC 9728 §3.3), then proxies `initialize` and `tools/list`
 * over its stdio. It runs as a child process with its config dir in a temp dir; its browser
 * opener (the `open` package's xdg-open, which honours BROWSER) runs `true` instead of a browser,
 * and the authorization URL it prints is driven in our Chromium through the real pages.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/chromium.js'
import { startMainJob } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'
import { mcpRemoteLoginInChromium, startMcpRemote } from '../helpers/mcp-remote.js'

const PASSWORD = 'mcp-remote demo password'

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

describe('mcp-remote against `mcp-auth start`', () => {
  for (const [path, transport] of [
    ['/sse', 'sse-only'],
    ['/mcp', 'http-only'],
  ] as const) {
    it(`logs in on ${path} (--transport ${transport}) and lists the tools through its stdio`, async () => {
      const callbackPort = await freePort()
      const remote = startMcpRemote(`${main.origin}${path}`, callbackPort, ['--transport', transport], configDir)
      try {
        const authorizationUrl = new URL(await remote.authorizationUrl())
        // the login is for the endpoint it was given: its own resource identifier
        expect(authorizationUrl.searchParams.get('resource')).toBe(`${main.origin}${path}`)
        const { loginText, consentText } = await mcpRemoteLoginInChromium(browser, authorizationUrl.href, callbackPort, { username: 'demo', password: PASSWORD })
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
