/**
 * `mcp-auth gateway --servers FILE` as users run it (issue 31, item 4): one process, each server
 * of the file at `/<name>/mcp` with its own protected resource metadata, the banner naming each.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { TEST_SERVER } from '../helpers/paths.js'

describe('mcp-auth gateway --servers', () => {
  let dir: string
  let file: string
  let child: ChildProcess
  let origin: string
  let output: () => string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-auth-gateway-servers-'))
    file = join(dir, 'servers.json')
    await writeFile(
      file,
      JSON.stringify({
        servers: {
          tickets: { command: process.execPath, args: [TEST_SERVER, 'ok'], name: 'Tickets' },
          files: { command: process.execPath, args: [TEST_SERVER, 'ok'], scopes: 'files:read', toolScopes: { echo: 'files:write' }, shared: true },
        },
      }),
    )
    const started = await startCli(['gateway', '--port', '0', '--data-dir', join(dir, 'data'), '--servers', file])
    child = started.child
    origin = new URL(started.url).origin
    output = started.output
  })
  afterAll(async () => {
    await stopChild(child)
    await rm(dir, { recursive: true, force: true })
  })

  it("serves each server's metadata at its own well-known URL", async () => {
    const tickets = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/tickets/mcp`)).json()) as Record<string, unknown>
    const files = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/files/mcp`)).json()) as Record<string, unknown>
    expect(tickets).toMatchObject({ resource: `${origin}/tickets/mcp`, authorization_servers: [origin], scopes_supported: ['mcp'], resource_name: 'Tickets' })
    expect(files).toMatchObject({ resource: `${origin}/files/mcp`, authorization_servers: [origin], scopes_supported: ['files:read', 'files:write'] })
    // and the authorization server knows both as resources
    const unauthorized = await fetch(`${origin}/files/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.headers.get('www-authenticate')).toContain(`${origin}/.well-known/oauth-protected-resource/files/mcp`)
    await unauthorized.body?.cancel()
  })

  it("lists each server's endpoint in the banner", async () => {
    const deadline = Date.now() + 5000
    while (!output().includes('/files/mcp') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(output()).toContain(`MCP endpoint        ${origin}/tickets/mcp`)
    expect(output()).toContain(`MCP endpoint        ${origin}/files/mcp`)
    expect(output()).toContain(`metadata          ${origin}/.well-known/oauth-protected-resource/files/mcp`)
  })

  it('refuses --servers with a command, or with an option set per server', async () => {
    const both = await runCli(['gateway', '--servers', file, '--', 'node', 'server.js'])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('give one of --servers FILE, --upstream URL or -- <command>')
    const scoped = await runCli(['gateway', '--servers', file, '--scopes', 'mcp'])
    expect(scoped.code).toBe(2)
    expect(scoped.stderr).toContain('--scopes is set per server in the --servers file')
  })

  it('refuses a file with a mistake in one line naming the server and the field', async () => {
    const bad = join(dir, 'bad.json')
    await writeFile(bad, JSON.stringify({ servers: { tickets: { command: 'x', sharde: true } } }))
    const refused = await runCli(['gateway', '--port', '0', '--data-dir', join(dir, 'bad-data'), '--servers', bad])
    expect(refused.code).toBe(2)
    expect(refused.stderr.split('\n')[0]).toBe(`mcp-auth gateway: --servers ${bad}: server "tickets": unknown field "sharde"`)
  })
})
