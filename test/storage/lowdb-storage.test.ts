import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { crc32 } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createLowdbStorage, type EmbeddedStorage, type LowdbStorageOptions } from '../../src/storage/lowdb-storage.js'
import { storeContents, type StoreContents } from '../helpers/store-contents.js'
import { describeStorageContract } from './storage-contract.js'

let dir: string
let file: string
const clock = { now: 0 }
const opened: EmbeddedStorage[] = []
const warnings: string[] = []

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lowdb-storage-'))
  file = join(dir, 'data', 'mcp-auth.json')
  clock.now = 1_700_000_000_000
  warnings.length = 0
})
afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close()))
  await rm(dir, { recursive: true, force: true })
})

async function open(options: Partial<LowdbStorageOptions> = {}): Promise<EmbeddedStorage> {
  const storage = await createLowdbStorage({ file, now: () => clock.now, warn: (message) => warnings.push(message), ...options })
  opened.push(storage)
  return storage
}

/** What a restart would load from the files (read-only, beside the open store). */
function onDisk(): Promise<StoreContents> {
  return storeContents(file, clock.now)
}

describeStorageContract('createLowdbStorage', (contractClock) => createLowdbStorage({ file, now: () => contractClock.now }), { revisions: true })

describe('createLowdbStorage adapter', () => {
  it('has each mutation in the file by the time it resolves', async () => {
    const storage = await open()
    const tokens = storage.adapter('AccessToken')
    await tokens.upsert('t1', { grantId: 'g1' }, 60)
    expect((await onDisk()).models['AccessToken']?.['t1']).toEqual({ payload: { grantId: 'g1' }, expiresAt: clock.now + 60_000 })
    await tokens.consume('t1')
    expect((await onDisk()).models['AccessToken']?.['t1']?.payload['consumed']).toBe(Math.floor(clock.now / 1000))
    await tokens.destroy('t1')
    expect((await onDisk()).models['AccessToken']).toEqual({})
    await tokens.upsert('t2', { grantId: 'g1' }, 60)
    await tokens.upsert('t3', { grantId: 'g2' }, 60)
    await tokens.revokeByGrantId('g1')
    expect(Object.keys((await onDisk()).models['AccessToken'] ?? {})).toEqual(['t3'])
    await storage.records.put('accounts', 'a1', { id: 'a1', username: 'alice' })
    await storage.records.put('accounts', 'a2', { id: 'a2', username: 'bob' })
    await storage.records.delete('accounts', 'a1')
    expect((await onDisk()).records).toEqual({ accounts: { a2: { id: 'a2', username: 'bob' } } })
  })

  it('writes the documented file layout: a marker, a snapshot, a journal of checksummed lines in committed batches', async () => {
    const storage = await open()
    await storage.adapter('Client').upsert('c1', { client_id: 'c1' })
    await storage.records.put('accounts', 'a1', { username: 'alice' })
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 2, snapshot: 'mcp-auth.snapshot', journal: 'mcp-auth.journal.<generation>' })
    const lines = (name: string) =>
      readFile(join(dir, 'data', name), 'utf8').then((text) =>
        text
          .split('\n')
          .filter(Boolean)
          .map((line) => {
            const [sum, text] = [line.slice(0, 8), line.slice(9)]
            expect(sum).toBe(crc32(text).toString(16).padStart(8, '0'))
            // a model record's payload follows its short array after a tab
            const [meta, payload] = text.split('\t')
            return payload === undefined ? (JSON.parse(meta!) as unknown[]) : [...(JSON.parse(meta!) as unknown[]), JSON.parse(payload)]
          }),
      )
    expect(await lines('mcp-auth.snapshot')).toEqual([
      ['h', { format: 'mcp-auth-snapshot', version: 2, generation: 1, createdAt: clock.now }],
      ['e', 0],
    ])
    expect(await lines('mcp-auth.journal.1')).toEqual([
      ['h', { format: 'mcp-auth-journal', version: 2, generation: 1, createdAt: clock.now }],
      ['m', 'Client', 'c1', null, null, null, null, { client_id: 'c1' }],
      ['c', 1],
      ['r', 'accounts', 'a1', { username: 'alice' }],
      ['c', 1],
    ])
    await storage.compact()
    expect(await lines('mcp-auth.snapshot')).toEqual([
      ['h', { format: 'mcp-auth-snapshot', version: 2, generation: 2, createdAt: clock.now }],
      ['m', 'Client', 'c1', null, null, null, null, { client_id: 'c1' }],
      ['r', 'accounts', 'a1', { username: 'alice' }],
      ['e', 2],
    ])
    expect(existsSync(join(dir, 'data', 'mcp-auth.journal.1'))).toBe(false)
    expect(await lines('mcp-auth.journal.2')).toEqual([['h', { format: 'mcp-auth-journal', version: 2, generation: 2, createdAt: clock.now }]])
  })

  it('stores ids that collide with Object.prototype names as ordinary ids', async () => {
    const storage = await open()
    await storage.adapter('Grant').upsert('__proto__', { grantId: '__proto__' })
    await storage.records.put('account-usernames', '__proto__', { id: 'a1' })
    await storage.records.put('account-usernames', 'constructor', { id: 'a2' })
    await storage.close()
    const reopened = await createLowdbStorage({ file, now: () => clock.now })
    opened.push(reopened)
    expect(await reopened.adapter('Grant').find('__proto__')).toEqual({ grantId: '__proto__' })
    expect(await reopened.records.get('account-usernames', '__proto__')).toEqual({ id: 'a1' })
    expect(await reopened.records.get('account-usernames', 'toString')).toBeUndefined()
    expect(await reopened.records.list('account-usernames')).toHaveLength(2)
  })

  it('persists every one of many concurrent upserts (group commit)', async () => {
    const tokens = (await open()).adapter('AccessToken')
    const ids = Array.from({ length: 200 }, (_, i) => `t${i}`)
    await Promise.all(ids.map((id) => tokens.upsert(id, { grantId: 'g1', jti: id }, 60)))
    expect(Object.keys((await onDisk()).models['AccessToken'] ?? {}).sort()).toEqual([...ids].sort())
  })
})

describe('createLowdbStorage lock', () => {
  it('refuses a second opening of the same file while the first is open, and allows it after close', async () => {
    const first = await open()
    await expect(createLowdbStorage({ file })).rejects.toThrow(/in use by process/)
    await first.close()
    const second = await createLowdbStorage({ file })
    opened.push(second)
    await second.records.put('c', 'k', { v: 1 })
  })

  it('takes over a lock left by a process that died', async () => {
    const { writeFile, mkdir } = await import('node:fs/promises')
    const { dirname } = await import('node:path')
    const { spawnSync } = await import('node:child_process')
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
    await mkdir(dirname(file), { recursive: true })
    await writeFile(`${file}.lock`, dead.stdout)
    const storage = await createLowdbStorage({ file })
    opened.push(storage)
    await storage.records.put('c', 'k', { v: 1 })
  })
})

describe('createLowdbStorage file', () => {
  it('sees all data after a restart on the same file', async () => {
    const first = await open()
    await first.adapter('Session').upsert('s1', { uid: 'u1', accountId: 'alice' }, 3600)
    await first.adapter('AccessToken').upsert('t1', { grantId: 'g1' }, 3600)
    await first.adapter('AccessToken').upsert('t2', { grantId: 'g1' }, 3600)
    await first.adapter('AuthorizationCode').upsert('c1', { grantId: 'g1' }, 60)
    await first.adapter('AuthorizationCode').consume('c1')
    await first.records.put('accounts', 'a1', { username: 'alice' })
    await first.close()

    const second = await open()
    expect(await second.adapter('Session').findByUid('u1')).toEqual({ uid: 'u1', accountId: 'alice' })
    expect(await second.adapter('AuthorizationCode').find('c1')).toMatchObject({ consumed: Math.floor(clock.now / 1000) })
    expect(await second.records.get('accounts', 'a1')).toEqual({ username: 'alice' })
    await second.adapter('AccessToken').revokeByGrantId('g1')
    expect(await second.adapter('AccessToken').find('t1')).toBeUndefined()
    expect(await second.adapter('AccessToken').find('t2')).toBeUndefined()
  })

  it('does not serve records that expired while it was stopped', async () => {
    const first = await open()
    await first.adapter('Interaction').upsert('i1', { uid: 'u1' }, 10)
    await first.close()
    clock.now += 11_000
    const second = await open()
    expect(await second.adapter('Interaction').find('i1')).toBeUndefined()
    expect(await second.adapter('Interaction').findByUid('u1')).toBeUndefined()
  })

  it('creates the directory 0700 and the file 0600', async () => {
    await (await open()).records.put('accounts', 'a1', { username: 'alice' })
    expect((await stat(join(dir, 'data'))).mode & 0o777).toBe(0o700)
    expect((await stat(file)).mode & 0o777).toBe(0o600)
  })

  it('makes its files 0600 again on start when someone loosened them', async () => {
    const storage = await open()
    await storage.records.put('accounts', 'a1', { username: 'alice' })
    await storage.close()
    const names = ['mcp-auth.json', 'mcp-auth.snapshot', 'mcp-auth.journal.1']
    for (const name of names) await chmod(join(dir, 'data', name), 0o644)
    await open()
    for (const name of names) expect((await stat(join(dir, 'data', name))).mode & 0o777).toBe(0o600)
  })

  it('sweep removes expired records from the file', async () => {
    const storage = await open({ sweepIntervalMs: 10 })
    await storage.adapter('AccessToken').upsert('short', { grantId: 'g1' }, 10)
    await storage.adapter('AccessToken').upsert('long', { grantId: 'g1' }, 3600)
    await storage.adapter('Client').upsert('forever', { client_id: 'forever' })
    clock.now += 60_000
    await vi.waitFor(async () => {
      expect(Object.keys((await onDisk()).models['AccessToken'] ?? {})).toEqual(['long'])
    })
    expect(Object.keys((await onDisk()).models['Client'] ?? {})).toEqual(['forever'])
  })

  it('close waits for writes still in flight', async () => {
    const storage = await open()
    const tokens = storage.adapter('AccessToken')
    const writes = Array.from({ length: 20 }, (_, i) => tokens.upsert(`t${i}`, { grantId: 'g1' }, 60))
    await storage.close()
    expect(Object.keys((await onDisk()).models['AccessToken'] ?? {})).toHaveLength(20)
    await Promise.all(writes)
  })

  it('refuses a corrupt file and leaves it untouched', async () => {
    const first = await open()
    await first.records.put('accounts', 'a1', { username: 'alice' })
    await first.close()
    const torn = (await readFile(file, 'utf8')).slice(0, 20)
    await writeFile(file, torn)
    await expect(open()).rejects.toThrow(/corrupt/)
    await expect(open()).rejects.toThrow(file)
    expect(await readFile(file, 'utf8')).toBe(torn)
  })

  it('refuses a file of an unknown format version', async () => {
    await mkdir(join(dir, 'data'))
    const newer = JSON.stringify({ version: 3 })
    await writeFile(file, newer)
    await expect(open()).rejects.toThrow(/format version 3; this build reads versions 1 and 2/)
    expect(await readFile(file, 'utf8')).toBe(newer)
  })

  it('rejects a sweep interval setInterval cannot honour', async () => {
    await expect(open({ sweepIntervalMs: 0 })).rejects.toThrow(RangeError)
    await expect(open({ sweepIntervalMs: Infinity })).rejects.toThrow(RangeError)
  })
})

describe('createLowdbStorage crash safety', () => {
  const built = new URL('../../dist/storage/lowdb-storage.js', import.meta.url)

  /**
   * Runs a child that writes 8 at a time (upserts, and a destroy now and then) and prints each id once
   * its write resolved ("+id", or "-id" for a destroy), with "*" when a compaction was running;
   * kills it with SIGKILL once `killWhen` says so. Returns what it printed.
   */
  async function killedWriter(options: { seed: number; compaction: object }, killWhen: (out: string) => boolean): Promise<string> {
    if (!existsSync(fileURLToPath(built))) throw new Error(`${fileURLToPath(built)} is missing: run npm run build first`)
    const script = join(dir, 'writer.mjs')
    await writeFile(
      script,
      `import { createLowdbStorage } from ${JSON.stringify(built.href)}
const storage = await createLowdbStorage({ file: process.argv[2], compaction: ${JSON.stringify(options.compaction)} })
const tokens = storage.adapter('AccessToken')
for (let at = 0; at < ${options.seed}; at += 1000) {
  await Promise.all(Array.from({ length: 1000 }, (_, i) => tokens.upsert('seed-' + (at + i), { grantId: 'seed', pad: 'x'.repeat(100) }, 3600)))
}
process.stdout.write('ready\\n')
let next = 0
const one = async () => {
  const n = next++
  const id = 'token-' + n
  if (n % 10 === 0) {
    await tokens.destroy('seed-' + n)
    process.stdout.write('-seed-' + n + (storage.stats().compacting ? ' *' : '') + '\\n')
  }
  await tokens.upsert(id, { grantId: 'g' + (n % 3), jti: id }, 3600)
  process.stdout.write('+' + id + (storage.stats().compacting ? ' *' : '') + '\\n')
}
for (;;) await Promise.all(Array.from({ length: 8 }, one))
`,
    )
    const child = spawn(process.execPath, [script, file], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      if (out.startsWith('ready\n') && killWhen(out)) child.kill('SIGKILL')
    })
    const [, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null]
    expect(signal).toBe('SIGKILL')
    return out
  }

  /** Every printed (acknowledged) write is in the files, and the store opens on them. */
  async function expectAcknowledgedKept(out: string): Promise<void> {
    // Pipes on Linux are written synchronously, so every printed line left the child before the kill.
    const lines = out.split('\n').map((line) => line.split(' ')[0]!)
    const added = lines.filter((line) => line.startsWith('+')).map((line) => line.slice(1))
    const removed = lines.filter((line) => line.startsWith('-')).map((line) => line.slice(1))
    expect(added.length).toBeGreaterThan(0)
    const stored = (await storeContents(file)).models['AccessToken'] ?? {}
    expect(added.filter((id) => !(id in stored))).toEqual([])
    expect(removed.filter((id) => id in stored)).toEqual([])
    const reopened = await open()
    expect(await reopened.adapter('AccessToken').find(added.at(-1)!)).toMatchObject({ jti: added.at(-1) })
  }

  it('keeps every acknowledged write when the process is killed mid-write', async () => {
    let ready: number | undefined
    const out = await killedWriter({ seed: 0, compaction: {} }, () => Date.now() - (ready ??= Date.now()) >= 300)
    await expectAcknowledgedKept(out)
  })

  it('keeps every acknowledged write when the process is killed while a compaction runs', async () => {
    // a store of 20,000 records compacted every ~256 kB of journal: compactions run back to back
    let compactingAcks = 0
    const out = await killedWriter({ seed: 20_000, compaction: { minJournalBytes: 262_144, journalRatio: 0, chunkBytes: 16_384 } }, (text) => {
      compactingAcks = text.split('\n').filter((line) => line.endsWith(' *')).length
      return compactingAcks >= 200
    })
    expect(compactingAcks).toBeGreaterThanOrEqual(200)
    await expectAcknowledgedKept(out)
  })
})
