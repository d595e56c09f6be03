/**
 * The main job as a library call (`createMainJob`, what `mcp-auth start` runs): the authorization
 * server and the protected demo server on one origin, the demo account, extra resources.
 */
import { createServer } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createMainJob } from '../../src/auth-server.js'
import { freePort } from '../helpers/free-port.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('createMainJob', () => {
  it('serves the authorization server and the protected demo server on one origin, with the demo account', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-main-job-'))
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }))
    const port = await freePort()
    const origin = `http://localhost:${port}`
    const job = await createMainJob({ origin, dataDir, resources: ['http://localhost:4160/mcp'], demoPassword: 'a demo password' })
    const listener = createServer(job.handler)
    await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve))
    cleanups.push(async () => {
      listener.closeAllConnections()
      await new Promise((resolve) => listener.close(resolve))
      await job.close()
    })

    expect(job.demoPassword).toBe('a demo password')
    expect(await job.as.accounts.authenticate('demo', 'a demo password')).toMatchObject({ username: 'demo', scopes: ['mcp', 'mcp:admin'] })
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as { issuer: string }
    expect(metadata.issuer).toBe(origin)
    const unauthorized = await fetch(`${origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.headers.get('www-authenticate')).toContain(`${origin}/.well-known/oauth-protected-resource/mcp`)
    // the demo resource's own metadata names it
    const resources = (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`).then((r) => r.json())) as { resource: string }
    expect(resources.resource).toBe(`${origin}/mcp`)
    await job.close()
    cleanups.pop()
    listener.closeAllConnections()
    await new Promise((resolve) => listener.close(resolve))

    // a second start on the same data directory keeps the account and returns no password
    const again = await createMainJob({ origin, dataDir })
    cleanups.push(() => again.close())
    expect(again.demoPassword).toBeUndefined()
  })

  it('never applies MCP_AUTH_DEMO_PASSWORD to an administrator, even one named demo in a store written by hand', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-main-job-'))
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }))
    const origin = `http://localhost:${await freePort()}`
    const first = await createMainJob({ origin, dataDir, demoPassword: 'the first demo password' })
    // what no surface of ours allows (the admin rules refuse it): written straight to the store
    await first.as.accounts.setRole('demo', 'admin')
    await first.close()
    const again = await createMainJob({ origin, dataDir, demoPassword: 'a password from the environment' })
    cleanups.push(() => again.close())
    expect(again.demoPasswordChange).toBe('not-applied')
    expect(await again.as.accounts.authenticate('demo', 'a password from the environment')).toBeUndefined()
    expect(await again.as.accounts.authenticate('demo', 'the first demo password')).toMatchObject({ username: 'demo', role: 'admin' })
  })
})
