import { afterAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'

const children: ChildProcess[] = []
let dir: string
afterAll(async () => {
  await Promise.all(children.map((child) => stopChild(child)))
  await rm(dir, { recursive: true, force: true })
})

describe('mcp-auth demo-server --auth-server', () => {
  it('protects the demo server with tokens from an authorization server elsewhere', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-auth-demo-protected-'))
    const [asPort, demoPort] = [await freePort(), await freePort()]
    const issuer = `http://127.0.0.1:${asPort}`
    const resource = `http://127.0.0.1:${demoPort}/mcp`
    const added = await runCli(['clients', 'add', '--name', 'caller', '--data-dir', dir])
    const clientId = /client_id: (\S+)/.exec(added.stdout)![1]!
    const secret = /client_secret: (\S+)/.exec(added.stdout)![1]!
    const as = await startCli(['auth-server', '--data-dir', dir, '--port', String(asPort), '--issuer', issuer, '--resource', resource])
    children.push(as.child)
    const demo = await startCli(['demo-server', '--port', String(demoPort), '--auth-server', issuer, '--scope', 'mcp'])
    children.push(demo.child)

    const metadata = (await (await fetch(`http://127.0.0.1:${demoPort}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>
    expect(metadata).toMatchObject({ resource, authorization_servers: [issuer] })

    const call = (authorization?: string) =>
      fetch(`http://127.0.0.1:${demoPort}/rest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      })
    const refused = await call()
    expect(refused.status).toBe(401)
    // /rest has metadata of its own (issue 28, item 2); a token for /mcp is accepted here all the same
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="http://127.0.0.1:${demoPort}/.well-known/oauth-protected-resource/rest"`)

    const tokenResponse = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp', resource }),
    })
    const { access_token } = (await tokenResponse.json()) as { access_token: string }
    const accepted = await call(`Bearer ${access_token}`)
    expect(accepted.status).toBe(200)
    expect(JSON.stringify(await accepted.json())).toContain(clientId)
  })
})
