// Issue 32 (clients and grants, item 2): each node's set of blocked clients follows the others over
// the bus, and a periodic reload (for a message missed) never undoes a change made or heard while
// it read the store.
import { describe, expect, it } from 'vitest'
import { BlockedClients } from '../../../../src/auth/server/stores/blocked-clients.js'
import { InProcessMessageBus } from '../../../../src/storage/message-bus.js'
import { createMemoryStorage } from '../../../../src/storage/memory-storage.js'
import type { RecordStore } from '../../../../src/storage/types.js'

describe('BlockedClients', () => {
  it('blocks and unblocks on every node sharing the bus, and a node loading later knows the blocks', async () => {
    const records = createMemoryStorage().records
    const bus = new InProcessMessageBus()
    const a = await BlockedClients.load(records, { bus })
    const b = await BlockedClients.load(records, { bus })
    try {
      expect(await a.block('app')).toBe(true)
      expect(await a.block('app')).toBe(false)
      await expect.poll(() => b.isBlocked('app')).toBe(true)
      const later = await BlockedClients.load(records)
      expect(later.isBlocked('app')).toBe(true)
      expect(await b.unblock('app')).toBe(true)
      await expect.poll(() => a.isBlocked('app')).toBe(false)
      expect(await b.unblock('app')).toBe(false)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('keeps a block heard while a reload was reading the store from before it', async () => {
    const inner = createMemoryStorage().records
    const bus = new InProcessMessageBus()
    // node b's next read of the store answers what was there when it started, once released
    let stall: Promise<void> | undefined
    let stalled = false
    const slow: RecordStore = {
      ...inner,
      get: (c, id) => inner.get(c, id),
      put: (c, id, v) => inner.put(c, id, v),
      create: (c, id, v) => inner.create(c, id, v),
      delete: (c, id) => inner.delete(c, id),
      list: async (c) => {
        const snapshot = await inner.list(c)
        const held = stall
        stall = undefined
        if (held !== undefined) {
          stalled = true
          await held
        }
        return snapshot as never
      },
    }
    const a = await BlockedClients.load(inner, { bus })
    const b = await BlockedClients.load(slow, { bus, resyncMs: 300 })
    let release!: () => void
    stall = new Promise((resolve) => (release = resolve))
    try {
      // b is inside a reload that read no block
      await expect.poll(() => stalled, { timeout: 2_000, interval: 5 }).toBe(true)
      await a.block('app')
      await expect.poll(() => b.isBlocked('app'), { interval: 1 }).toBe(true)
      release()
      // the stalled reload ends (its swap runs on the next turns), long before the next one starts
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve))
      expect(b.isBlocked('app')).toBe(true)
    } finally {
      release()
      await Promise.all([a.close(), b.close()])
    }
  })
})
