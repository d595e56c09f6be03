// Issue 27, item 7: a resource added or removed through one process (a node, or the CLI with
// --redis) reaches every node that watches the store: at once over the bus, and by the periodic
// reload for an announcement a node missed.
import { describe, expect, it } from 'vitest'
import { ResourceStore, type StoredResource } from '../../../src/auth/server/stores/resource-store.js'
import { InProcessMessageBus } from '../../../src/storage/message-bus.js'
import { createMemoryStorage } from '../../../src/storage/memory-storage.js'

const OTHER = 'http://localhost:4160/mcp'

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 2_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error('not within 2 s')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('ResourceStore.watch', () => {
  it('hands a watcher the stored resources when another process adds or removes one', async () => {
    const storage = createMemoryStorage()
    const bus = new InProcessMessageBus()
    const node = new ResourceStore(storage.records, bus)
    const cli = new ResourceStore(storage.records, bus)
    const seen: StoredResource[][] = []
    const stop = await node.watch(await node.list(), (stored) => seen.push(stored), 60_000)
    try {
      await cli.add({ uri: OTHER, scopes: ['files:read'] })
      await until(() => seen.length === 1)
      expect(seen[0]!.map((resource) => resource.uri)).toEqual([OTHER])
      await cli.remove(OTHER)
      await until(() => seen.length === 2)
      expect(seen[1]).toEqual([])
    } finally {
      await stop()
    }
  })

  it('reloads on its own for a change nobody announced, and says nothing while nothing changed', async () => {
    const storage = createMemoryStorage()
    const node = new ResourceStore(storage.records, new InProcessMessageBus())
    const seen: StoredResource[][] = []
    const stop = await node.watch(await node.list(), (stored) => seen.push(stored), 50)
    try {
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(seen).toEqual([])
      // written without the bus (a missed message)
      await new ResourceStore(storage.records).add({ uri: OTHER })
      await until(() => seen.length === 1)
      expect(seen[0]!.map((resource) => resource.uri)).toEqual([OTHER])
    } finally {
      await stop()
    }
  })

  it('never calls without a bus (a single process reads its resources at start)', async () => {
    const storage = createMemoryStorage()
    const node = new ResourceStore(storage.records)
    const seen: StoredResource[][] = []
    const stop = await node.watch([], (stored) => seen.push(stored), 10)
    await node.add({ uri: OTHER })
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(seen).toEqual([])
    await stop()
  })
})
