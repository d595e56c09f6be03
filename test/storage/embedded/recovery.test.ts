import { appendFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { StoreDamagedError } from '../../../src/storage/embedded/store-damaged-error.js'
import { createLowdbStorage, type EmbeddedStorage } from '../../../src/storage/lowdb-storage.js'
import { storeContents } from '../../helpers/store-contents.js'

let dir: string
let file: string
const warnings: string[] = []
const opened: EmbeddedStorage[] = []
const data = (name: string): string => join(dir, 'data', name)

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'store-recovery-'))
  file = data('mcp-auth.json')
  warnings.length = 0
})
afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close()))
  await rm(dir, { recursive: true, force: true })
})

async function open(): Promise<EmbeddedStorage> {
  const storage = await createLowdbStorage({ file, warn: (message) => warnings.push(message) })
  opened.push(storage)
  return storage
}

/** A store with three acknowledged writes, closed. */
async function threeWrites(): Promise<void> {
  const storage = await createLowdbStorage({ file, warn: (message) => warnings.push(message) })
  await storage.adapter('Client').upsert('c1', { client_id: 'c1' })
  await storage.adapter('Client').upsert('c2', { client_id: 'c2' })
  await storage.records.put('accounts', 'a1', { username: 'alice' })
  await storage.close()
}

const journalLines = async (): Promise<string[]> => (await readFile(data('mcp-auth.journal.1'), 'utf8')).split('\n')

describe('embedded store recovery', () => {
  it('drops a torn last line (a crash mid-append), says so, and keeps every committed write', async () => {
    await threeWrites()
    const before = (await stat(data('mcp-auth.journal.1'))).size
    await appendFile(data('mcp-auth.journal.1'), '1f2e3d4c ["m","Client","c3",{"client_id":')
    const storage = await open()
    expect(await storage.adapter('Client').find('c1')).toEqual({ client_id: 'c1' })
    expect(await storage.adapter('Client').find('c2')).toEqual({ client_id: 'c2' })
    expect(await storage.records.get('accounts', 'a1')).toEqual({ username: 'alice' })
    expect(await storage.adapter('Client').find('c3')).toBeUndefined()
    expect(warnings).toEqual([expect.stringMatching(/dropped the unfinished last batch of .*mcp-auth\.journal\.1 \(line 8 on, 1 line\(s\), \d+ bytes\).*never acknowledged/)])
    // cut off, so the next write follows good data
    expect((await stat(data('mcp-auth.journal.1'))).size).toBe(before)
    await storage.adapter('Client').upsert('c4', { client_id: 'c4' })
    await storage.close()
    opened.length = 0
    warnings.length = 0
    const again = await open()
    expect(await again.adapter('Client').find('c4')).toEqual({ client_id: 'c4' })
    expect(warnings).toEqual([])
  })

  it('drops whole lines of a batch whose commit line never made it to the disk', async () => {
    await threeWrites()
    const lines = await journalLines()
    // the last batch is the account's line and its commit: keep the change, lose the commit
    await writeFile(data('mcp-auth.journal.1'), `${lines.slice(0, -2).join('\n')}\n`)
    const storage = await open()
    expect(await storage.records.get('accounts', 'a1')).toBeUndefined()
    expect(await storage.adapter('Client').find('c2')).toEqual({ client_id: 'c2' })
    expect(warnings).toEqual([expect.stringMatching(/dropped the unfinished last batch .*\(line 6 on, 1 line\(s\)/)])
  })

  it('refuses a journal damaged before its last batch, naming the file and the line, and leaves it untouched', async () => {
    await threeWrites()
    const lines = await journalLines()
    lines[1] = lines[1]!.replace('"c1"}', '"cX"}') // a changed byte: the checksum no longer matches
    const damaged = lines.join('\n')
    await writeFile(data('mcp-auth.journal.1'), damaged)
    const error = await open().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(StoreDamagedError)
    expect((error as StoreDamagedError).message).toMatch(
      /mcp-auth\.journal\.1 line 2 is damaged \(checksum mismatch\); refusing to start on it\. Restore the data directory from a backup/,
    )
    expect(await readFile(data('mcp-auth.journal.1'), 'utf8')).toBe(damaged)
  })

  it('refuses a damaged snapshot, and one cut short', async () => {
    await threeWrites()
    const storage = await open()
    await storage.compact()
    await storage.close()
    opened.length = 0
    const text = await readFile(data('mcp-auth.snapshot'), 'utf8')
    await writeFile(data('mcp-auth.snapshot'), text.replace('alice', 'alicf'))
    await expect(open()).rejects.toThrow(/mcp-auth\.snapshot line \d is damaged \(checksum mismatch\)/)
    await writeFile(data('mcp-auth.snapshot'), text.split('\n').slice(0, 3).join('\n'))
    await expect(open()).rejects.toThrow(/mcp-auth\.snapshot line 3 is damaged \(its last line is cut short: an incomplete snapshot\)/)
    await writeFile(data('mcp-auth.snapshot'), `${text.split('\n').slice(0, 3).join('\n')}\n`)
    await expect(open()).rejects.toThrow(/mcp-auth\.snapshot is damaged \(it ends before its end line: an incomplete snapshot\)/)
  })

  it('refuses a store whose journal or snapshot is missing', async () => {
    await threeWrites()
    await rm(data('mcp-auth.journal.1'))
    await expect(open()).rejects.toThrow(/mcp-auth\.journal\.1 is damaged \(it is missing, and the snapshot continues with it\)/)
    await rm(data('mcp-auth.snapshot'))
    await expect(open()).rejects.toThrow(/mcp-auth\.snapshot is damaged \(it is missing, though .*mcp-auth\.json says the store is in format 2\)/)
  })

  it('migrates a format-1 store on first start, keeps the old file as a backup, and drops what had expired', async () => {
    await mkdir(join(dir, 'data'), { mode: 0o700 })
    const v1 = JSON.stringify({
      version: 1,
      models: {
        Client: { c1: { payload: { client_id: 'c1' } } },
        RefreshToken: { live: { payload: { grantId: 'g1' }, expiresAt: Date.now() + 3_600_000 }, dead: { payload: { grantId: 'g1' }, expiresAt: Date.now() - 1000 } },
      },
      records: { accounts: { a1: { username: 'alice' } } },
    })
    await writeFile(file, v1, { mode: 0o600 })
    const storage = await open()
    expect(await storage.adapter('Client').find('c1')).toEqual({ client_id: 'c1' })
    expect(await storage.adapter('RefreshToken').find('live')).toEqual({ grantId: 'g1' })
    expect(await storage.adapter('RefreshToken').find('dead')).toBeUndefined()
    expect(await storage.records.get('accounts', 'a1')).toEqual({ username: 'alice' })
    expect(warnings).toEqual([expect.stringMatching(/migrated .*mcp-auth\.json from format 1 to format 2 \(3 records.*kept as .*mcp-auth\.json\.v1-backup/)])
    expect(await readFile(`${file}.v1-backup`, 'utf8')).toBe(v1)
    expect((await stat(`${file}.v1-backup`)).mode & 0o777).toBe(0o600)
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ version: 2 })
    // the second start reads format 2 and migrates nothing
    await storage.close()
    opened.length = 0
    warnings.length = 0
    expect(await (await open()).records.get('accounts', 'a1')).toEqual({ username: 'alice' })
    expect(warnings).toEqual([])
  })

  it('refuses a malformed format-1 store and leaves it as it was', async () => {
    await mkdir(join(dir, 'data'), { mode: 0o700 })
    const bad = JSON.stringify({ version: 1, models: { Client: { c1: { nopayload: true } } }, records: {} })
    await writeFile(file, bad, { mode: 0o600 })
    await expect(open()).rejects.toThrow(/mcp-auth\.json is malformed: models\.Client\["c1"\] is malformed/)
    expect(await readFile(file, 'utf8')).toBe(bad)
  })

  it('replays a sweep line: what had expired by then stays gone, whatever the clock says at the next start', async () => {
    let clock = 1_700_000_000_000
    const first = await createLowdbStorage({ file, now: () => clock, sweepIntervalMs: 5, warn: (message) => warnings.push(message) })
    await first.adapter('AccessToken').upsert('short', { grantId: 'g' }, 10)
    await first.adapter('AccessToken').upsert('long', { grantId: 'g' }, 3600)
    clock += 60_000
    await expect.poll(async () => (await readFile(data('mcp-auth.journal.1'), 'utf8')).includes('["s",')).toBe(true)
    await first.close()
    // a clock that went back must not bring the swept record back
    clock -= 59_000
    const second = await createLowdbStorage({ file, now: () => clock, warn: (message) => warnings.push(message) })
    opened.push(second)
    expect(await second.adapter('AccessToken').find('short')).toBeUndefined()
    expect(await second.adapter('AccessToken').find('long')).toEqual({ grantId: 'g' })
    expect(Object.keys((await storeContents(file, clock)).models['AccessToken'] ?? {})).toEqual(['long'])
  })
})
