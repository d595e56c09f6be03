/**
 * The CLI against a server that speaks 2026-07-28 only (the official SDK v2 server in its strict
 * `legacy: 'reject'` mode, on node:http): `tools` and `call` connect with server/discover, and
 * `proxy` carries a 2026-07-28 stdio host's requests one by one, Mcp-Param headers included.
 */
import { createMcpHandler } from '@modelcontextprotocol/server'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { McpClient } from '../../src/client/mcp-client.js'
import { StdioClientTransport } from '../../src/transports/stdio/index.js'
// @ts-expect-error -- a plain ES module fixture, shared with a stdio child in other tests
import { createSdkV2Server } from '../fixtures/sdk-v2-server.mjs'
import { runCli } from '../helpers/cli-process.js'
import { listenOnLoopback } from '../helpers/listen.js'
import { CLI_PATH } from '../helpers/paths.js'

let url: string
let store: string
let dir: string
const closers: Array<() => Promise<void>> = []

beforeEach(async () => {
  const handler = createMcpHandler(createSdkV2Server, { legacy: 'reject' })
  const server = await listenOnLoopback(toNodeHandler(handler) as never)
  closers.push(async () => {
    await handler.close()
    await server.close()
  })
  url = `${server.url}/mcp`
  dir = mkdtempSync(join(tmpdir(), 'mcp-auth-cli-stateless-'))
  store = join(dir, 'tokens.json')
})
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined)
  rmSync(dir, { recursive: true, force: true })
})

describe('the CLI against a 2026-07-28-only server', () => {
  it('lists its tools', async () => {
    const { code, stdout, stderr } = await runCli(['tools', url, '--no-browser', '--store', store])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toMatch(/weather/)
    expect(stdout).toMatch(/echo/)
  })

  it('calls a tool that mirrors a parameter into a header', async () => {
    const { code, stdout, stderr } = await runCli(['call', url, 'weather', '{"region":"us-west1"}', '--no-browser', '--store', store])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toMatch(/sunny in us-west1/)
  })

  it('proxies a 2026-07-28 stdio host, Mcp-Param headers included', async () => {
    const client = new McpClient({ name: 'stdio-host', version: '1.0.0' }, { listenForChanges: false })
    closers.push(() => client.close())
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'proxy', url, '--no-browser', '--store', store], stderr: 'pipe' }))
    expect(client.protocolVersion).toBe('2026-07-28')
    await client.listTools()
    expect((await client.callTool('weather', { region: 'eu' })).content).toEqual([{ type: 'text', text: 'sunny in eu' }])
  })

  it('answers a handshake-era host through the proxy with the server’s refusal instead of leaving it waiting', async () => {
    const client = new McpClient({ name: 'old-host', version: '1.0.0' }, { protocolVersion: '2025-11-25', requestTimeoutMs: 10_000 })
    const connecting = client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'proxy', url, '--no-browser', '--store', store], stderr: 'pipe' }))
    closers.push(() => client.close())
    await expect(connecting).rejects.toMatchObject({ code: -32022 })
  })
})
