/**
 * Issue 31, item 1: `mcp-auth gateway --auth-server URL` trusts another authorization server (any
 * RFC 8414 one; here our own `mcp-auth auth-server` in another process): tokens it issued for the
 * gateway's resource are accepted, others refused, and the per-account values set for a subject
 * of that server (`mcp-auth user-env set --subject`) reach that subject's child.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'
import { TEST_SERVER } from '../helpers/paths.js'

/** Another MCP server the same authorization server issues tokens for. */
const OTHER = 'http://localhost:9/other/mcp'

describe('mcp-auth gateway --auth-server (our auth-server in another process)', () => {
  let asDir: string
  let gatewayDir: string
  let as: Awaited<ReturnType<typeof startCli>>
  let gateway: Awaited<ReturnType<typeof startCli>>
  let issuer: string
  let resource: string
  let client: { id: string; secret: string }

  beforeAll(async () => {
    asDir = await mkdtemp(join(tmpdir(), 'mcp-auth-gw-as-'))
    gatewayDir = await mkdtemp(join(tmpdir(), 'mcp-auth-gw-rs-'))
    const port = await freePort()
    resource = `http://localhost:${port}/mcp`
    const added = await runCli(['clients', 'add', '--name', 'machine', '--grant-type', 'client_credentials', '--data-dir', asDir])
    client = { id: /client_id: (\S+)/.exec(added.stdout)![1]!, secret: /client_secret: (\S+)/.exec(added.stdout)![1]! }
    as = await startCli(['auth-server', '--port', '0', '--data-dir', asDir, '--resource', resource, '--resource', OTHER])
    issuer = new URL(as.url).origin
    // the subject that server puts in `sub` for this client (client_credentials: the client itself)
    const set = await runCli(['user-env', 'set', '--subject', client.id, 'TEST_ACCOUNT_VALUE', '--value-stdin', '--data-dir', gatewayDir], { input: 'value for the machine\n' })
    expect(set.code, set.stderr).toBe(0)
    gateway = await startCli(['gateway', '--port', String(port), '--data-dir', gatewayDir, '--auth-server', issuer, '--', process.execPath, TEST_SERVER, 'ok'])
  })
  afterAll(async () => {
    await stopChild(gateway.child)
    await stopChild(as.child)
    await rm(asDir, { recursive: true, force: true })
    await rm(gatewayDir, { recursive: true, force: true })
  })

  const token = async (forResource: string): Promise<string> => {
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: forResource }),
    })
    const body = (await response.json()) as { access_token?: string }
    expect(body.access_token, JSON.stringify(body)).toBeDefined()
    return body.access_token!
  }

  const initialize = (accessToken: string) =>
    fetch(resource, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    })

  it('names the other server in its metadata and serves no authorization server of its own', async () => {
    const metadata = (await (await fetch(`${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp`)).json()) as { authorization_servers: string[] }
    expect(metadata.authorization_servers).toEqual([issuer])
    expect((await fetch(`${new URL(resource).origin}/.well-known/oauth-authorization-server`)).status).toBe(404)
  })

  it("accepts that server's token for its resource, and the child gets the subject's per-account value", async () => {
    const accessToken = await token(resource)
    const init = await initialize(accessToken)
    expect(init.status).toBe(200)
    const session = init.headers.get('mcp-session-id')!
    await init.text()
    const call = await fetch(resource, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    })
    const data = (await call.text()).split('\n').find((line) => line.startsWith('data: {'))!
    const who = JSON.parse(JSON.parse(data.slice(6)).result.content[0].text)
    expect(who).toMatchObject({ subject: client.id, clientId: client.id, extra: 'value for the machine' })
  })

  it("refuses that server's token for another resource", async () => {
    const other = await token(OTHER)
    const refused = await initialize(other)
    expect(refused.status).toBe(401)
    await refused.body?.cancel()
  })
})
