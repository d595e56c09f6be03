/**
 * Issue 32: the resource store's writes under concurrency, interleaved on purpose: a removal made
 * on what was read before a change does not delete the change; two resources sharing an alias
 * are not both stored; a claim left by an add that never finished is taken over after the grace.
 */
import { describe, expect, it } from 'vitest'
import { defaults } from '../../../../src/config/defaults.js'
import { ResourceConflictError, ResourceStore, StaleResourceError } from '../../../../src/auth/server/stores/resource-store.js'
import { createMemoryStorage } from '../../../../src/storage/memory-storage.js'
import type { RecordStore } from '../../../../src/storage/types.js'

/** `records`, whose reads (get, list) return what they read only after `open()` while `closed`: another node writes in between. */
function gated(records: RecordStore): { records: RecordStore; close(): void; open(): void } {
  let gate: Promise<void> | undefined
  let release: (() => void) | undefined
  return {
    records: {
      ...records,
      get: async (collection, id) => {
        const value = await records.get(collection, id)
        if (gate !== undefined) await gate
        return value as never
      },
      list: async (collection) => {
        const values = await records.list(collection)
        if (gate !== undefined) await gate
        return values as never
      },
      put: (collection, id, value) => records.put(collection, id, value),
      create: (collection, id, value) => records.create(collection, id, value),
      delete: (collection, id) => records.delete(collection, id),
      putIfRevision: (collection, id, value, revision) => records.putIfRevision(collection, id, value, revision),
      scan: (collection, options) => records.scan(collection, options),
    },
    close() {
      gate = new Promise((resolve) => (release = resolve))
    },
    open() {
      gate = undefined
      release?.()
    },
  }
}

describe('ResourceStore', () => {
  it('refuses a removal at a revision a change saved meanwhile replaced, keeping the change', async () => {
    const { records } = createMemoryStorage()
    const slow = gated(records)
    const here = new ResourceStore(slow.records)
    const there = new ResourceStore(records)
    await there.add({ uri: 'https://example.com/mcp' })
    slow.close()
    const removing = here.remove('https://example.com/mcp', 0)
    await there.update('https://example.com/mcp', { uri: 'https://example.com/mcp', name: 'changed' }, 0)
    slow.open()
    await expect(removing).rejects.toBeInstanceOf(StaleResourceError)
    expect((await there.get('https://example.com/mcp'))?.name).toBe('changed')
  })

  it('stores one of two resources sharing an alias when both were checked before either was saved', async () => {
    const { records } = createMemoryStorage()
    const slow = gated(records)
    const here = new ResourceStore(slow.records)
    const there = new ResourceStore(records)
    const alias = 'https://example.com/shared/sse'
    slow.close()
    const adding = here.create({ uri: 'https://example.com/a', aliases: [alias] })
    const other = await there.create({ uri: 'https://example.com/b', aliases: [alias] }).catch((error: unknown) => error)
    slow.open()
    const outcomes = [await adding.catch((error: unknown) => error), other]
    expect(outcomes.filter((outcome) => outcome instanceof ResourceConflictError)).toHaveLength(1)
    expect(await there.list()).toHaveLength(1)
  })

  it('takes over a claim whose resource was never stored, once the grace is over', async () => {
    let now = Date.now()
    const { records } = createMemoryStorage()
    const store = new ResourceStore(records, undefined, () => now)
    // an add that claimed its identifiers and stopped before storing the resource
    await records.create('resource-identifiers', 'https://example.com/shared/sse', { uri: 'https://example.com/gone', claimedAt: now, rev: 0 })
    await expect(store.create({ uri: 'https://example.com/c', aliases: ['https://example.com/shared/sse'] })).rejects.toThrow(/gone/)
    now += defaults.authServer.resourceClaimGraceMs + 1
    expect(await store.create({ uri: 'https://example.com/c', aliases: ['https://example.com/shared/sse'] })).toMatchObject({ uri: 'https://example.com/c' })
  })
})
