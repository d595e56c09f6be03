/**
 * Issue 33 (events): the gateway's children in the audit trail: each start, end and crash once,
 * and an administrator's end once, naming the administrator (not also as a plain end).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { StoredAuditEvent } from '../../src/observe/audit-event.js'
import { Observer } from '../../src/observe/observer.js'
import { adminCall, adminToken } from '../helpers/admin-api.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'

const root = { username: 'root', password: 'root password 1' }
const events: StoredAuditEvent[] = []
let stack: GatewayStack
let admin: string

beforeAll(async () => {
  const observer = new Observer()
  observer.addAuditObserver((event) => {
    if (event.type.startsWith('gateway.')) events.push(event)
  })
  stack = await startGatewayStack({ observer, children: { restartDelayMs: 100, maxRestartDelayMs: 100 } })
  await stack.job.as!.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  admin = (await adminToken(stack.origin, root)).access_token
})
afterAll(() => stack?.stop())
beforeEach(() => {
  events.length = 0
})

const whoami = async (client: Awaited<ReturnType<GatewayStack['connect']>>): Promise<{ pid: number; clientId: string }> => {
  const result = await client.callTool({ name: 'whoami', arguments: {} })
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { pid: number; clientId: string }
}
const ofType = (type: string) => events.filter((event) => event.type === type)

describe('gateway children in the audit trail', () => {
  it('records a child started for a session and ended with it, once each', async () => {
    const client = await stack.connect(await stack.token('plain'))
    const { clientId } = await whoami(client)
    const [started, ...more] = ofType('gateway.child-started')
    expect(more).toHaveLength(0)
    expect(started).toMatchObject({ result: 'success', clientId, actor: { channel: 'gateway' }, details: { server: '/mcp' } })
    await client.close()
    await expect.poll(() => ofType('gateway.child-ended').length, { timeout: 5000 }).toBe(1)
    expect(ofType('gateway.child-ended')[0]).toMatchObject({ clientId, details: { child: started!.details!['child'] } })
    expect(ofType('gateway.child-crashed')).toHaveLength(0)
  })

  it('records a child that died mid-call as crashed, with how it ended', async () => {
    const client = await stack.connect(await stack.token('dies'))
    try {
      await expect(client.callTool({ name: 'die', arguments: {} })).rejects.toThrow(/exited with code 7/)
      await expect.poll(() => ofType('gateway.child-crashed').length, { timeout: 5000 }).toBe(1)
      expect(ofType('gateway.child-crashed')[0]).toMatchObject({ result: 'failure', reason: 'exited_unexpectedly', details: { end: 'the MCP server process exited with code 7' } })
      expect(ofType('gateway.child-ended')).toHaveLength(0)
    } finally {
      await client.close()
    }
  })

  it('records a child an administrator ended once, as the administrator’s', async () => {
    const client = await stack.connect(await stack.token('ended'))
    try {
      const { clientId } = await whoami(client)
      const [child] = (await adminCall(stack.origin, admin, 'GET', `/children?client_id=${encodeURIComponent(clientId)}`)).body.items
      expect((await adminCall(stack.origin, admin, 'DELETE', `/children/${child.id}`)).status).toBe(204)
      const rootId = (await stack.job.as!.accounts.findByUsername(root.username))!.id
      expect(ofType('gateway.child-ended-by-admin')).toEqual([
        expect.objectContaining({
          result: 'success',
          clientId,
          actor: expect.objectContaining({ subject: rootId, username: 'root', channel: 'admin-api' }),
          details: expect.objectContaining({ child: child.id }),
        }),
      ])
      // the child's own end is the administrator's event, not a second one
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(ofType('gateway.child-ended').filter((event) => event.details?.['child'] === child.id)).toHaveLength(0)
    } finally {
      await client.close()
    }
  })
})
