/**
 * Issue 32: the gateway's children through the admin API of its authorization server: each
 * child listed with its principal, node and server; ended by an administrator, after which the
 * session gets a new child on its next request, as after a crash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminCall, adminToken } from '../helpers/admin-api.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'

const root = { username: 'root', password: 'root password 1' }
let stack: GatewayStack
let admin: string

beforeAll(async () => {
  stack = await startGatewayStack()
  await stack.job.as!.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  admin = (await adminToken(stack.origin, root)).access_token
})
afterAll(() => stack?.stop())

const whoami = async (client: Awaited<ReturnType<GatewayStack['connect']>>): Promise<{ pid: number; clientId: string }> => {
  const result = await client.callTool({ name: 'whoami', arguments: {} })
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { pid: number; clientId: string }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('admin API: the gateway’s children', () => {
  it('lists a session’s child with its client, node and server, and filters by client', async () => {
    const client = await stack.connect(await stack.token('lister'))
    try {
      const { clientId } = await whoami(client)
      const listed = await adminCall(stack.origin, admin, 'GET', `/children?client_id=${encodeURIComponent(clientId)}`)
      expect(listed.status).toBe(200)
      expect(listed.body.items).toHaveLength(1)
      const state = await adminCall(stack.origin, admin, 'GET', '/state')
      expect(listed.body.items[0]).toMatchObject({ client_id: clientId, server: '/mcp', state: 'running', node: state.body.nodes[0].id })
      expect(Date.parse(listed.body.items[0].started_at)).toBeLessThanOrEqual(Date.now())
      expect(state.body.nodes[0].children).toBeGreaterThanOrEqual(1)
      expect((await adminCall(stack.origin, admin, 'GET', '/children?client_id=nobody')).body.items).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('ends a child: its process exits, and the session’s next request gets a new one', async () => {
    const client = await stack.connect(await stack.token('ended'))
    try {
      const first = await whoami(client)
      const [child] = (await adminCall(stack.origin, admin, 'GET', `/children?client_id=${encodeURIComponent(first.clientId)}`)).body.items
      const ended = await adminCall(stack.origin, admin, 'DELETE', `/children/${child.id}`)
      expect(ended.status).toBe(204)
      await expect.poll(() => alive(first.pid), { timeout: 5000 }).toBe(false)
      expect((await adminCall(stack.origin, admin, 'GET', `/children?client_id=${encodeURIComponent(first.clientId)}`)).body.items).toEqual([])
      const second = await whoami(client)
      expect(second.pid).not.toBe(first.pid)
      const [next] = (await adminCall(stack.origin, admin, 'GET', `/children?client_id=${encodeURIComponent(first.clientId)}`)).body.items
      expect(next.id).not.toBe(child.id)
      expect((await adminCall(stack.origin, admin, 'DELETE', `/children/${child.id}`)).status).toBe(404)
    } finally {
      await client.close()
    }
  })

  it('lists the gateway’s server among the resources as a configured one', async () => {
    const resources = await adminCall(stack.origin, admin, 'GET', '/resources')
    expect(resources.body.items.find((item: { uri: string }) => item.uri === stack.resource)).toMatchObject({ source: 'configured' })
  })
})
