import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { backupEmbeddedStore } from '../../../src/storage/embedded/backup-store.js'
import { restoreEmbeddedStore } from '../../../src/storage/embedded/restore-store.js'
import { createLowdbStorage, type EmbeddedStorage } from '../../../src/storage/lowdb-storage.js'

let dir: string
const opened: EmbeddedStorage[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'store-backup-'))
})
afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close()))
  await rm(dir, { recursive: true, force: true })
})

async function open(dataDir: string, small = false): Promise<EmbeddedStorage> {
  const storage = await createLowdbStorage({
    file: join(dataDir, 'mcp-auth.json'),
    warn: () => undefined,
    ...(small ? { compaction: { minJournalBytes: 16_384, journalRatio: 0.5, chunkBytes: 2048 } } : {}),
  })
  opened.push(storage)
  return storage
}

describe('backup and restore of the embedded store', () => {
  it('a backup taken during a burst of writes and compactions restores every write acknowledged before it began', async () => {
    const live = join(dir, 'live')
    const storage = await open(live, true)
    const clients = storage.adapter('Client')
    const acknowledged: string[] = []
    let stop = false
    let started = false
    const removedLater = new Set<string>()
    let next = 0
    const writer = async (): Promise<void> => {
      while (!stop) {
        const id = `client-${next++}`
        await clients.upsert(id, { client_id: id, client_name: 'x'.repeat(200) })
        acknowledged.push(id)
        // some changes and removals too, so replay order matters
        const victim = acknowledged[acknowledged.length - 5]
        if (next % 7 === 0 && victim !== undefined) {
          acknowledged.splice(acknowledged.indexOf(victim), 1)
          // removed once the backup began: a backup may rightly miss it
          if (started) removedLater.add(victim)
          await clients.destroy(victim)
        }
      }
    }
    const writers = Array.from({ length: 8 }, writer)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const before = [...acknowledged]
    started = true
    const generationBefore = storage.stats().generation
    const backup = join(dir, 'backup')
    await backupEmbeddedStore(join(live, 'mcp-auth.json'), backup)
    await new Promise((resolve) => setTimeout(resolve, 100))
    stop = true
    await Promise.all(writers)
    expect(before.length).toBeGreaterThan(100)
    expect(storage.stats().generation).toBeGreaterThan(generationBefore - 1)
    expect(generationBefore).toBeGreaterThan(1) // compactions ran during the burst

    const restored = join(dir, 'restored')
    const inspected = await restoreEmbeddedStore(backup, restored)
    expect(inspected.format).toBe(2)
    const copy = await open(restored)
    const held = new Set((await copy.adapter('Client').list()).map(({ id }) => id))
    expect(before.filter((id) => !held.has(id) && !removedLater.has(id))).toEqual([])
    for (const name of ['mcp-auth.json', 'mcp-auth.snapshot']) expect((await stat(join(restored, name))).mode & 0o777).toBe(0o600)
  })

  it('restore refuses a directory that holds a store, one a server runs on, and a directory that is no backup', async () => {
    const live = join(dir, 'live')
    const storage = await open(live)
    await storage.records.put('accounts', 'a1', { username: 'alice' })
    const backup = join(dir, 'backup')
    await backupEmbeddedStore(join(live, 'mcp-auth.json'), backup)
    await expect(backupEmbeddedStore(join(live, 'mcp-auth.json'), backup)).rejects.toThrow(/is not empty: back up into a new directory/)
    await expect(restoreEmbeddedStore(backup, live)).rejects.toThrow(/in use by process/)
    await storage.close()
    opened.length = 0
    await expect(restoreEmbeddedStore(backup, live)).rejects.toThrow(/holds a store already: move its mcp-auth\.json/)
    await expect(restoreEmbeddedStore(join(dir, 'nothing'), join(dir, 'target'))).rejects.toThrow(/holds no backup of an embedded store/)
    const fresh = join(dir, 'fresh')
    await restoreEmbeddedStore(backup, fresh)
    expect(await (await open(fresh)).records.get('accounts', 'a1')).toEqual({ username: 'alice' })
  })

  it('backup refuses a journal damaged before its last commit instead of copying it short', async () => {
    const live = join(dir, 'live')
    const storage = await open(live)
    await storage.records.put('accounts', 'a1', { username: 'alice' })
    await storage.records.put('accounts', 'a2', { username: 'bob' })
    await storage.close()
    opened.length = 0
    const journal = join(live, 'mcp-auth.journal.1')
    await writeFile(journal, (await readFile(journal, 'utf8')).replace('alice', 'alicf'))
    await expect(backupEmbeddedStore(join(live, 'mcp-auth.json'), join(dir, 'backup'))).rejects.toThrow(/mcp-auth\.journal\.1 line 2 is damaged \(checksum mismatch\)/)
  })
})
