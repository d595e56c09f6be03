// Issue 30: /healthz tells the store's figures only to a caller with the server file's key
// (mcp-auth status), and such a caller is not taken for a load balancer.
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { cliServerStates } from '../../src/cli/cli-server-state.js'
import { createCliServer, listenOn } from '../../src/cli/serve.js'
import { newStatusKey } from '../../src/cli/status-key.js'

const servers: Array<ReturnType<typeof createCliServer>> = []
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    server.close()
  }
})

async function serve(key: string): Promise<{ server: ReturnType<typeof createCliServer>; url: string }> {
  const server = createCliServer((_req, res) => res.end('app'), {
    health: async () => true,
    status: { key, details: async () => ({ storage: { backend: 'embedded', models: { Client: 3 } }, pid: 42 }) },
  })
  servers.push(server)
  await listenOn(server, 0, '127.0.0.1')
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

describe('createCliServer status details', () => {
  it('adds the details to /healthz for the key only: nothing for no key, a wrong key, or a key of another length', async () => {
    const key = newStatusKey()
    expect(Buffer.from(key, 'base64url')).toHaveLength(32)
    const { url } = await serve(key)
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' })
    for (const wrong of [newStatusKey(), 'short', `${key}x`]) {
      expect(await (await fetch(`${url}/healthz`, { headers: { 'x-mcp-auth-status-key': wrong } })).json()).toEqual({ status: 'ok' })
    }
    const asked = await fetch(`${url}/healthz`, { headers: { 'x-mcp-auth-status-key': key } })
    expect(asked.status).toBe(200)
    expect(await asked.json()).toEqual({ status: 'ok', storage: { backend: 'embedded', models: { Client: 3 } }, pid: 42 })
    // other paths are the handler's, key or not
    expect(await (await fetch(`${url}/other`, { headers: { 'x-mcp-auth-status-key': key } })).text()).toBe('app')
  })

  it('does not count a request with the key as a load balancer’s check (a shutdown need not wait for one)', async () => {
    const key = newStatusKey()
    const { server, url } = await serve(key)
    await (await fetch(`${url}/healthz`, { headers: { 'x-mcp-auth-status-key': key } })).json()
    expect(cliServerStates.get(server)?.lastHealthCheck).toBe(0)
    await (await fetch(`${url}/healthz`)).json()
    expect(cliServerStates.get(server)?.lastHealthCheck).toBeGreaterThan(0)
  })
})
