import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createLowdbStorage, type EmbeddedStorage, type LowdbStorageOptions } from '../../../src/storage/lowdb-storage.js'
import { storeContents } from '../../helpers/store-contents.js'

let dir: string
let file: string
const opened: EmbeddedStorage[] = []

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'store-compaction-'))
  file = join(dir, 'data', 'mcp-auth.json')
})
afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close()))
  await rm(dir, { recursive: true, force: true })
})

async function open(options: Partial<LowdbStorageOptions> = {}): Promise<EmbeddedStorage> {
  const storage = await createLowdbStorage({ file, warn: () => undefined, ...options })
  opened.push(storage)
  return storage
}

async function seed(storage: EmbeddedStorage, n: number): Promise<void> {
  const tokens = storage.adapter('RefreshToken')
  for (let at = 0; at < n; at += 500) {
    await Promise.all(Array.from({ length: Math.min(500, n - at) }, (_, i) => tokens.upsert(`seed-${at + i}`, { grantId: `g${(at + i) % 50}`, n: at + i }, 3600)))
  }
}

const storeFiles = async (): Promise<string[]> => (await readdir(join(dir, 'data'))).filter((name) => name.startsWith('mcp-auth.') || name.startsWith('.mcp-auth.')).sort()

describe('embedded store compaction', () => {
  it('compacts on its own once the journal outgrows its bound; the files then hold the same records', async () => {
    const storage = await open({ compaction: { minJournalBytes: 8192, journalRatio: 1 } })
    await seed(storage, 2000)
    await expect.poll(() => storage.stats().compacting).toBe(false)
    const stats = storage.stats()
    expect(stats.generation).toBeGreaterThan(1)
    expect(stats.lastCompaction.records).toBeGreaterThan(0)
    expect(stats.models).toEqual({ RefreshToken: 2000 })
    // superseded journals are gone: the current one, and at most the one a compaction is leaving
    expect((await storeFiles()).filter((name) => name.startsWith('mcp-auth.journal.'))).toEqual([`mcp-auth.journal.${stats.generation}`])
    expect(Object.keys((await storeContents(file)).models['RefreshToken'] ?? {})).toHaveLength(2000)
  })

  it('keeps every write made while a compaction walks the store: new records, changed ones, removed ones', async () => {
    const storage = await open({ compaction: { chunkBytes: 1024 } })
    await seed(storage, 4000)
    const tokens = storage.adapter('RefreshToken')
    const compaction = storage.compact()
    expect(storage.stats().compacting).toBe(true)
    const writes: Array<Promise<unknown>> = []
    for (let i = 0; i < 300; i++) {
      writes.push(tokens.upsert(`new-${i}`, { grantId: 'fresh', n: i }, 3600))
      writes.push(tokens.upsert(`seed-${i}`, { grantId: 'changed', n: -i - 1 }, 3600))
      writes.push(tokens.destroy(`seed-${3999 - i}`))
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve))
    }
    writes.push(tokens.revokeByGrantId('g7'))
    await Promise.all([compaction, ...writes])
    expect(storage.stats().generation).toBe(2)
    await storage.close()
    opened.length = 0

    const reopened = await open()
    const records = await reopened.adapter('RefreshToken').list()
    const byId = new Map(records.map(({ id, payload }) => [id, payload]))
    for (let i = 0; i < 300; i++) {
      expect(byId.get(`new-${i}`)).toEqual({ grantId: 'fresh', n: i })
      expect(byId.get(`seed-${i}`)).toEqual({ grantId: 'changed', n: -i - 1 })
      expect(byId.has(`seed-${3999 - i}`)).toBe(false)
    }
    expect(records.filter(({ payload }) => payload.grantId === 'g7')).toEqual([])
    // 4000 seeded + 300 new - 300 removed - the g7 ones not among the changed or removed
    const g7 = Array.from({ length: 4000 }, (_, n) => n).filter((n) => n % 50 === 7 && n >= 300 && n < 3700).length
    expect(records).toHaveLength(4000 + 300 - 300 - g7)
  })

  it('a close during a compaction abandons it and loses nothing; no temp file is left', async () => {
    const storage = await open({ compaction: { chunkBytes: 512 } })
    await seed(storage, 3000)
    const compaction = storage.compact().catch((error: unknown) => error)
    await storage.adapter('Client').upsert('late', { client_id: 'late' })
    await storage.close()
    opened.length = 0
    expect(await compaction).toMatchObject({ name: 'SnapshotAbandoned' })
    expect((await storeFiles()).filter((name) => name.endsWith('.tmp'))).toEqual([])
    const reopened = await open()
    expect(await reopened.adapter('Client').find('late')).toEqual({ client_id: 'late' })
    expect(await reopened.adapter('RefreshToken').list()).toHaveLength(3000)
  })

  it('compact() asked while a compaction runs follows it, so its snapshot holds every write made before the call', async () => {
    const storage = await open({ compaction: { chunkBytes: 1024 } })
    await seed(storage, 1000)
    const first = storage.compact()
    await storage.adapter('Client').upsert('during', { client_id: 'during' })
    const second = storage.compact()
    await Promise.all([first, second])
    expect(storage.stats().generation).toBe(3)
    // the journal is empty: everything is in the snapshot
    expect(storage.stats().journalBytes).toBeLessThan(200)
    expect((await readFile(join(dir, 'data', 'mcp-auth.snapshot'), 'utf8')).includes('"during"')).toBe(true)
  })
})
