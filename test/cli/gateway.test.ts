/**
 * Issue 31, item 1: `mcp-auth gateway [options] -- <command> [args…]` as users run it: our
 * authorization server and the stdio program behind it on one origin, protected resource
 * metadata, per-tool scopes from the command line, no demo account; SIGTERM drains and ends the
 * children; usage errors say what to write.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { answerOf } from '../helpers/gateway-stack.js'
import { TEST_SERVER } from '../helpers/paths.js'

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }

async function post(url: string, token: string, body: unknown, session?: string): Promise<{ status: number; headers: Headers; message: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session !== undefined ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
    },
    body: JSON.stringify(body),
  })
  return { status: response.status, headers: response.headers, message: await answerOf(response) }
}

describe('mcp-auth gateway -- <command>', () => {
  let dataDir: string
  let gateway: Awaited<ReturnType<typeof startCli>>
  let origin: string
  let client: { id: string; secret: string }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-gateway-cli-'))
    const added = await runCli(['clients', 'add', '--name', 'gw machine', '--grant-type', 'client_credentials', '--data-dir', dataDir])
    expect(added.code).toBe(0)
    client = { id: /client_id: (\S+)/.exec(added.stdout)![1]!, secret: /client_secret: (\S+)/.exec(added.stdout)![1]! }
    gateway = await startCli([
      'gateway',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--name',
      'test tools',
      '--tool-scope',
      'die=tools:admin',
      '--',
      process.execPath,
      TEST_SERVER,
      'ok',
    ])
    origin = new URL(gateway.url).origin
  })
  afterAll(async () => {
    await stopChild(gateway.child)
    await rm(dataDir, { recursive: true, force: true })
  })

  const token = async (scope: string): Promise<string> => {
    const response = await fetch(`${origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${origin}/mcp`, scope }),
    })
    return ((await response.json()) as { access_token: string }).access_token
  }

  it('serves protected resource metadata naming our authorization server and the scopes', async () => {
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>
    expect(metadata).toMatchObject({ resource: `${origin}/mcp`, authorization_servers: [origin], resource_name: 'test tools' })
    expect(metadata.scopes_supported).toEqual(['mcp', 'tools:admin'])
    const unauthenticated = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(INITIALIZE),
    })
    expect(unauthenticated.status).toBe(401)
    expect(unauthenticated.headers.get('www-authenticate')).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`)
  })

  it('relays a session to the stdio program and enforces per-tool scopes', async () => {
    const plain = await token('mcp')
    const init = await post(`${origin}/mcp`, plain, INITIALIZE)
    expect(init.message.result.serverInfo).toEqual({ name: 'stdio-test-server', version: '1.0.0' })
    const session = init.headers.get('mcp-session-id')!
    const echo = await post(`${origin}/mcp`, plain, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'via the CLI' } } }, session)
    expect(echo.message.result.content[0].text).toBe('echo: via the CLI')
    const refused = await post(`${origin}/mcp`, plain, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'die', arguments: {} } }, session)
    expect(refused.status).toBe(403)
  })

  it('creates no demo account', async () => {
    expect(gateway.output()).not.toMatch(/Demo account/)
    const page = await fetch(`${origin}/.well-known/oauth-authorization-server`)
    expect(page.status).toBe(200)
  })

  it('ends the children on SIGTERM (stdin closed, then SIGTERM, then SIGKILL) and exits 0', async () => {
    const init = await post(`${origin}/mcp`, await token('mcp'), INITIALIZE)
    const session = init.headers.get('mcp-session-id')!
    const who = await post(`${origin}/mcp`, await token('mcp'), { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, session)
    const { pid } = JSON.parse(who.message.result.content[0].text)
    const exited = new Promise<number | null>((resolve) => gateway.child.once('exit', (code) => resolve(code)))
    gateway.child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(() => process.kill(pid, 0)).toThrow()
  })
})

describe('mcp-auth gateway usage errors', () => {
  it('asks for the command after --', async () => {
    const result = await runCli(['gateway', '--port', '0'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/name the MCP server to run after --/)
  })

  it('refuses a malformed --tool-scope', async () => {
    const result = await runCli(['gateway', '--tool-scope', 'nothing', '--', 'true'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--tool-scope takes TOOL=SCOPE/)
  })
})
