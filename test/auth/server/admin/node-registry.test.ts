/**
 * Issue 32: the node registry behind GET /state, /keys and /children. A node that stops beating
 * leaves the list after `nodeRecordTtlSeconds` (a crashed node never says goodbye), and its
 * record is deleted once long dead; an end request reaches only the node that runs the child.
 */
import { describe, expect, it } from 'vitest'
import { NodeRegistry } from '../../../../src/auth/server/admin/node-registry.js'
import type { ChildDirectory, ChildInfo } from '../../../../src/auth/server/admin/child-directory.js'
import { defaults } from '../../../../src/config/defaults.js'
import { InProcessMessageBus } from '../../../../src/storage/message-bus.js'
import { createMemoryStorage } from '../../../../src/storage/memory-storage.js'

const a = defaults.authServer.admin
const keys = { signingKeys: 'fingerprint', secrets: 'digest' }

/** A directory of given children that records which it was asked to end. */
function directory(children: ChildInfo[]): ChildDirectory & { ended: string[] } {
  const ended: string[] = []
  return {
    ended,
    list: () => children.filter((child) => !ended.includes(child.id)),
    async end(id) {
      if (!children.some((child) => child.id === id) || ended.includes(id)) return false
      ended.push(id)
      return true
    },
  }
}

describe('NodeRegistry', () => {
  it('lists a node that stopped beating until its record is older than the lifetime, and deletes it once long dead', async () => {
    let now = Date.now()
    const clock = () => now
    const { records } = createMemoryStorage()
    const bus = new InProcessMessageBus()
    const crashed = await NodeRegistry.start({ records, bus, keys, now: clock })
    const alive = await NodeRegistry.start({ records, bus, keys, now: clock })
    expect((await alive.nodes()).map((node) => node.id)).toEqual([alive.id, crashed.id])
    // the crashed one's heartbeat no longer runs; the live one's record is refreshed by each list
    await crashed.stop().then(() => records.put('admin-nodes', crashed.id, { ...crashed.self(), lastSeenAt: now }))
    now += a.nodeRecordTtlSeconds * 1000
    expect((await alive.nodes()).map((node) => node.id)).toEqual([alive.id, crashed.id])
    now += 1000
    expect((await alive.nodes()).map((node) => node.id)).toEqual([alive.id])
    expect(await records.get('admin-nodes', crashed.id)).toBeDefined()
    now += a.nodeRecordRemoveAfterSeconds * 1000
    await alive.nodes()
    expect(await records.get('admin-nodes', crashed.id)).toBeUndefined()
    await alive.stop()
    expect(await records.get('admin-nodes', alive.id)).toBeUndefined()
  })

  it('sends an end request to the node that runs the child, and to no other', async () => {
    const { records } = createMemoryStorage()
    const bus = new InProcessMessageBus()
    const child: ChildInfo = { id: 'child-1', clientId: 'c', server: '/mcp', startedAt: Date.now(), state: 'running' }
    const onB = directory([child])
    const onC = directory([{ ...child, id: 'child-2' }])
    const nodeA = await NodeRegistry.start({ records, bus, keys, children: directory([]) })
    const nodeB = await NodeRegistry.start({ records, bus, keys, children: onB })
    const nodeC = await NodeRegistry.start({ records, bus, keys, children: onC })
    try {
      expect((await nodeA.children()).map((listed) => [listed.id, listed.node])).toEqual([
        ['child-1', nodeB.id],
        ['child-2', nodeC.id],
      ])
      expect(await nodeA.endChild('child-1')).toEqual({ kind: 'sent', node: nodeB.id })
      await expect.poll(() => onB.ended).toEqual(['child-1'])
      expect(onC.ended).toEqual([])
      expect(await nodeC.endChild('child-2')).toEqual({ kind: 'ended' })
      expect(await nodeA.endChild('no-such-child')).toEqual({ kind: 'unknown' })
    } finally {
      for (const node of [nodeA, nodeB, nodeC]) await node.stop()
    }
  })

  it('is the one node, writing nothing, without a shared store', async () => {
    const { records } = createMemoryStorage()
    const only = await NodeRegistry.start({ records, keys })
    expect((await only.nodes()).map((node) => node.id)).toEqual([only.id])
    expect(await records.list('admin-nodes')).toEqual([])
    expect(await only.endChild('x')).toEqual({ kind: 'unknown' })
    await only.stop()
  })
})
