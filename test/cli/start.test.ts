import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { startCli, stopChild } from '../helpers/cli-process.js'

const children: ChildProcess[] = []
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stopChild(child)))
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

async function start(dir: string, env: Record<string, string> = {}) {
  const started = await startCli(['start', '--port', '0', '--data-dir', dir], { env })
  children.push(started.child)
  // The banner follows the "listening on" line.
  await new Promise((resolve) => setTimeout(resolve, 200))
  return started
}

describe('mcp-auth start', () => {
  it('serves the authorization server and the protected demo server on one localhost origin', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-start-'))
    dirs.push(dir)
    const { url, output } = await start(dir)
    expect(url).toMatch(/^http:\/\/localhost:\d+$/)
    const metadata = (await (await fetch(`${url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string }
    expect(metadata.issuer).toBe(url)
    const prm = (await (await fetch(`${url}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] }
    expect(prm).toMatchObject({ resource: `${url}/mcp`, authorization_servers: [url] })
    const mcp = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' })
    expect(mcp.status).toBe(401)
    expect(output()).toMatch(/Demo account\s+demo \/ password: \S+/)
    expect(output()).toContain('MCP Inspector')
    // the resource side's signing keys come from this same server: fetched once it listens
    expect(output()).not.toMatch(/could not preload/)
    expect((await stat(join(dir, 'mcp-auth.json'))).mode & 0o777).toBe(0o600)
  })

  it('takes the demo password from MCP_AUTH_DEMO_PASSWORD and prints it only on the first start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-start-'))
    dirs.push(dir)
    const first = await start(dir, { MCP_AUTH_DEMO_PASSWORD: 'chosen demo password' })
    expect(first.output()).toContain('password: chosen demo password')
    await stopChild(first.child)
    const second = await start(dir)
    expect(second.output()).not.toContain('chosen demo password')
    expect(second.output()).toContain('password set on first start')
  })
})
