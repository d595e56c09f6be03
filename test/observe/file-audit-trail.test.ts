import { fork } from 'node:child_process'
import { mkdir, mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AuditEvent, StoredAuditEvent } from '../../src/observe/audit-event.js'
import { FileAuditTrail } from '../../src/observe/file-audit-trail.js'

let dir: string
let sequence = 0

function stored(event: Partial<AuditEvent> & { at?: string } = {}): StoredAuditEvent {
  const at = event.at ?? new Date().toISOString()
  return { type: 'sign-in.succeeded', result: 'success', node: 'test:1', id: `${Date.parse(at)}-${sequence++}`, ...event, at }
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audit-trail-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('FileAuditTrail', () => {
  it('appends JSON lines to audit.jsonl, created 0600, once flushed', async () => {
    const trail = new FileAuditTrail({ dataDir: dir })
    trail.append(stored({ username: 'alice' }))
    trail.append(stored({ username: 'bob' }))
    await trail.flushed()
    const lines = (await readFile(join(dir, 'audit.jsonl'), 'utf8')).trim().split('\n')
    expect(lines.map((line) => JSON.parse(line).username)).toEqual(['alice', 'bob'])
    expect((await stat(join(dir, 'audit.jsonl'))).mode & 0o777).toBe(0o600)
    await trail.close()
  })

  it('finds the newest events with since = their own time, on a file system that rounds its write times down', async () => {
    const trail = new FileAuditTrail({ dataDir: dir })
    const at = new Date()
    trail.append(stored({ at: at.toISOString(), username: 'last' }))
    await trail.flushed()
    // a file system with whole-second timestamps: the write's time is before the event's
    const second = new Date(Math.floor(at.getTime() / 1000) * 1000 - 1)
    await utimes(join(dir, 'audit.jsonl'), second, second)
    expect((await trail.query({ since: at.getTime() })).map((event) => event.username)).toEqual(['last'])
    await trail.close()
  })

  it('tightens a file someone left readable by others to 0600', async () => {
    await writeFile(join(dir, 'audit.jsonl'), '', { mode: 0o644 })
    const trail = new FileAuditTrail({ dataDir: dir })
    trail.append(stored())
    await trail.close()
    expect((await stat(join(dir, 'audit.jsonl'))).mode & 0o777).toBe(0o600)
  })

  it('returns from append at once and never throws, even for an event JSON cannot write or after close', async () => {
    const trail = new FileAuditTrail({ dataDir: dir })
    const circular = stored() as StoredAuditEvent & { self?: unknown }
    circular.self = circular
    expect(() => trail.append(circular)).not.toThrow()
    await trail.close()
    expect(() => trail.append(stored())).not.toThrow()
    expect(trail.lost()).toBe(2)
  })

  it('drops events it cannot write, counted, logged once per outage, and writes again once it can', async () => {
    const messages: string[] = []
    const log = { error: (_: unknown, message: string) => messages.push(message), warn: (_: unknown, message: string) => messages.push(message) } as never
    const missing = join(dir, 'not-yet')
    const trail = new FileAuditTrail({ dataDir: missing, log })
    for (let i = 0; i < 3; i++) {
      trail.append(stored())
      await trail.flushed()
    }
    expect(trail.lost()).toBe(3)
    expect(messages).toHaveLength(1)
    expect(messages[0]).toMatch(/^audit trail: events are being lost \(cannot write .*not-yet\/audit\.jsonl: ENOENT/)
    await mkdir(missing)
    trail.append(stored({ username: 'back' }))
    await trail.close()
    expect(messages).toEqual([messages[0], 'audit trail: writing again'])
    expect((await readFile(join(missing, 'audit.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(1)
  })

  it('rotates by size into audit.jsonl.1, .2…, keeps 0600 and deletes past the file count', async () => {
    const trail = new FileAuditTrail({ dataDir: dir, rotateBytes: 400, maxFiles: 3 })
    for (let i = 0; i < 40; i++) {
      trail.append(stored({ username: `user-${i}` }))
      await trail.flushed()
    }
    await trail.close()
    const names = (await readdir(dir)).sort()
    expect(names).toEqual(['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2', 'audit.jsonl.3'])
    for (const name of names) expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600)
    // the newest events are in the live file, older ones in .1, .2, .3 in turn
    const last = (await readFile(join(dir, 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).username)
    expect(last.at(-1)).toBe('user-39')
    const reader = new FileAuditTrail({ dataDir: dir })
    const all = await reader.query({ limit: 1000 })
    const numbers = all.map((event) => Number(event.username!.slice(5)))
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a))
    expect(numbers[0]).toBe(39)
    expect(numbers.length).toBeLessThan(40)
  })

  it('deletes rotated files older than the retention, never the live one', async () => {
    await writeFile(join(dir, 'audit.jsonl'), `${JSON.stringify(stored({ username: 'live' }))}\n`, { mode: 0o600 })
    await writeFile(join(dir, 'audit.jsonl.1'), `${JSON.stringify(stored({ username: 'recent' }))}\n`, { mode: 0o600 })
    await writeFile(join(dir, 'audit.jsonl.2'), `${JSON.stringify(stored({ username: 'old' }))}\n`, { mode: 0o600 })
    const old = new Date(Date.now() - 10 * 86_400_000)
    await utimes(join(dir, 'audit.jsonl.2'), old, old)
    await utimes(join(dir, 'audit.jsonl'), old, old)
    const trail = new FileAuditTrail({ dataDir: dir, retentionMs: 5 * 86_400_000 })
    trail.append(stored({ username: 'new' }))
    await trail.flushed()
    await expect.poll(async () => (await readdir(dir)).sort()).toEqual(['audit.jsonl', 'audit.jsonl.1'])
    await trail.close()
  })

  describe('query', () => {
    let trail: FileAuditTrail
    const base = Date.parse('2026-11-20T10:00:00Z')
    beforeEach(async () => {
      const writer = new FileAuditTrail({ dataDir: dir, rotateBytes: 1500 })
      // one write per event, so the files rotate between them (a batch is written whole)
      trail = {
        append: (event: StoredAuditEvent) =>
          void (queued = queued.then(() => {
            writer.append(event)
            return writer.flushed()
          })),
      } as unknown as FileAuditTrail
      let queued: Promise<void> = Promise.resolve()
      const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString()
      trail.append(stored({ at: at(0), type: 'sign-in.failed', result: 'failure', username: 'alice', reason: 'wrong password' }))
      trail.append(stored({ at: at(1), type: 'sign-in.succeeded', username: 'alice', clientId: 'cli' }))
      trail.append(stored({ at: at(2), type: 'token.issued', subject: 'sub-a', clientId: 'cli', scopes: ['mcp'] }))
      trail.append(stored({ at: at(3), type: 'account.created', actor: { username: 'root', channel: 'admin-api' }, username: 'bob' }))
      trail.append(stored({ at: at(4), type: 'sign-in.succeeded', username: 'bob', clientId: 'other' }))
      trail.append(stored({ at: at(5), type: 'client.blocked', actor: { username: 'root' }, clientId: 'other' }))
      for (let i = 6; i < 30; i++) trail.append(stored({ at: at(i), type: 'token.issued', subject: 'sub-b', clientId: 'bulk' }))
      await queued
      trail = writer
    })
    afterEach(async () => {
      await trail.close()
    })

    it('reads newest first, across rotated files, up to the limit', async () => {
      expect((await readdir(dir)).length).toBeGreaterThan(1)
      const all = await trail.query({ limit: 1000 })
      expect(all).toHaveLength(30)
      expect(all.map((event) => Date.parse(event.at))).toEqual(all.map((event) => Date.parse(event.at)).sort((a, b) => b - a))
      expect(await trail.query({ limit: 3 })).toHaveLength(3)
    })

    it('filters by user as actor or as the account, by client, by type and by prefix', async () => {
      expect((await trail.query({ user: 'alice' })).map((event) => event.type)).toEqual(['sign-in.succeeded', 'sign-in.failed'])
      expect((await trail.query({ user: 'root' })).map((event) => event.type)).toEqual(['client.blocked', 'account.created'])
      expect((await trail.query({ user: 'bob' })).map((event) => event.type)).toEqual(['sign-in.succeeded', 'account.created'])
      expect((await trail.query({ clientId: 'other' })).map((event) => event.type)).toEqual(['client.blocked', 'sign-in.succeeded'])
      expect((await trail.query({ types: ['sign-in.'] })).map((event) => event.username)).toEqual(['bob', 'alice', 'alice'])
      expect((await trail.query({ types: ['sign-in.failed', 'client.blocked'] })).map((event) => event.type)).toEqual(['client.blocked', 'sign-in.failed'])
      expect(await trail.query({ types: ['sign-in'] })).toEqual([])
    })

    it('keeps to since and until', async () => {
      const found = await trail.query({ since: base + 2 * 60_000, until: base + 4 * 60_000 })
      expect(found.map((event) => event.type)).toEqual(['sign-in.succeeded', 'account.created', 'token.issued'])
    })

    it('pages with a cursor that survives a rotation', async () => {
      const first = await trail.page({ limit: 10 })
      expect(first.items).toHaveLength(10)
      expect(first.nextCursor).toBeDefined()
      // more events rotate the files under the cursor
      for (let i = 0; i < 20; i++) trail.append(stored({ type: 'keys.rotated' }))
      await trail.flushed()
      const second = await trail.page({ limit: 10, cursor: first.nextCursor! })
      expect(second.items.map((event) => event.at)).toEqual((await trail.query({ limit: 1000, until: base + 60 * 60_000 })).slice(10, 20).map((event) => event.at))
      const rest = await trail.page({ limit: 1000, cursor: second.nextCursor! })
      expect(rest.nextCursor).toBeUndefined()
      expect(first.items.length + second.items.length + rest.items.length).toBe(30)
    })

    it('stops after reading its share of the file and hands a cursor to go on', async () => {
      const reader = new FileAuditTrail({ dataDir: dir, maxScanBytes: 1000 })
      const pages: StoredAuditEvent[][] = []
      let cursor: string | undefined
      do {
        const page = await reader.page({ user: 'alice', ...(cursor !== undefined ? { cursor } : {}) })
        pages.push(page.items)
        cursor = page.nextCursor
      } while (cursor !== undefined && pages.length < 100)
      expect(pages.length).toBeGreaterThan(2)
      expect(pages.flat().map((event) => event.type)).toEqual(['sign-in.succeeded', 'sign-in.failed'])
    })

    it('refuses a cursor it did not make', async () => {
      await expect(trail.page({ cursor: '../etc/passwd' })).rejects.toThrow(RangeError)
    })
  })

  it('skips a torn or foreign line instead of failing the query', async () => {
    await writeFile(join(dir, 'audit.jsonl'), `${JSON.stringify(stored({ username: 'a' }))}\nnot json\n{"type":"sign-in.succ`, { mode: 0o600 })
    const trail = new FileAuditTrail({ dataDir: dir })
    expect((await trail.query({})).map((event) => event.username)).toEqual(['a'])
  })

  it('follows new events across a rotation until the signal aborts', async () => {
    const writer = new FileAuditTrail({ dataDir: dir, rotateBytes: 600 })
    writer.append(stored({ username: 'before' }))
    await writer.flushed()
    const reader = new FileAuditTrail({ dataDir: dir, followPollMs: 20 })
    const seen: string[] = []
    const controller = new AbortController()
    const following = reader.follow({ types: ['sign-in.'] }, (event) => seen.push(event.username!), controller.signal)
    await new Promise((resolve) => setTimeout(resolve, 60))
    for (let i = 0; i < 12; i++) {
      writer.append(stored({ username: `u${i}` }))
      writer.append(stored({ type: 'token.issued', username: 'not-a-sign-in' }))
      await writer.flushed()
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect((await readdir(dir)).length).toBeGreaterThan(2)
    await expect.poll(() => seen, { timeout: 3000 }).toHaveLength(12)
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `u${i}`))
    controller.abort()
    await following
    await writer.close()
  })

  it('keeps whole lines when two processes append at once', async () => {
    const script = join(dir, 'writer.mjs')
    const moduleUrl = new URL('../../dist/observe/file-audit-trail.js', import.meta.url).href
    await writeFile(
      script,
      `const { FileAuditTrail } = await import(${JSON.stringify(moduleUrl)})
const trail = new FileAuditTrail({ dataDir: process.argv[2] })
const pad = 'x'.repeat(2000)
for (let i = 0; i < 300; i++) { trail.append({ id: String(i), at: new Date().toISOString(), node: process.argv[3], type: 'token.issued', result: 'success', details: { pad } }); if (i % 10 === 0) await new Promise((r) => setImmediate(r)) }
await trail.close()`,
    )
    const run = (name: string) =>
      new Promise<void>((resolve, reject) => {
        const child = fork(script, [dir, name], { stdio: 'inherit' })
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${name} exited ${code}`))))
      })
    await Promise.all([run('a'), run('b')])
    const lines = (await readFile(join(dir, 'audit.jsonl'), 'utf8')).trim().split('\n')
    expect(lines).toHaveLength(600)
    const nodes = lines.map((line) => (JSON.parse(line) as StoredAuditEvent).node)
    expect(nodes.filter((node) => node === 'a')).toHaveLength(300)
  })
})
