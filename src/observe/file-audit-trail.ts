import { open, stat, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { defaults } from '../config/defaults.js'
import type { AuditQuery, StoredAuditEvent } from './audit-event.js'
import { auditFileLinesBackwards, readAuditFileLinesFrom } from './audit-file-lines.js'
import { rotateAuditFile, rotatedAuditFiles, sweepAuditFiles } from './audit-file-rotation.js'
import type { AuditPage, AuditPageQuery, PagedAuditTrail } from './audit-page.js'
import { auditQueryLimit, auditQueryMatch } from './audit-query-match.js'
import { type Log, silentLog } from './log.js'

/** How far a file's modification time may lag the last event written to it (file systems with 1–2 s timestamps). */
const MTIME_GRANULARITY_MS = 2_000
const settings = defaults.observe.audit

/** The file being appended to: its inode (to see a rotation by another process), size, and when that was last checked. */
interface LiveFile {
  handle: FileHandle
  ino: number
  size: number
  checkedAt: number
}

/** Options of {@link FileAuditTrail}; each defaults to `defaults.observe.audit`. */
export interface FileAuditTrailOptions {
  /** The data directory (the trail is `audit.jsonl` in it). */
  dataDir: string
  /** Where a failure to write is reported (once per outage). */
  log?: Log
  file?: string
  rotateBytes?: number
  maxFiles?: number
  retentionMs?: number
  followPollMs?: number
  maxScanBytes?: number
}

/** A query's page cursor in a file: the file (its inode, stable across rotation) and where to read back from. */
const CURSOR = /^f([0-9]+)\.([0-9]+)$/

/**
 * The audit trail of one node: JSON lines appended to `audit.jsonl` in the data directory (0600,
 * opened with O_APPEND so the CLI's local mode and the server never tear each other's lines),
 * rotated by size to `audit.jsonl.1` … and deleted past the retention or the file count.
 *
 * `append` only queues the line and returns: the writes happen off the request path, a batch per
 * turn of the event loop. A write that fails drops its events, counted and logged once per outage.
 * Reading (`query`, `follow`) needs no lock: `mcp-auth audit` reads while the server runs.
 *
 * @example
 * const trail = new FileAuditTrail({ dataDir: './data' })
 * observer.attachTrail(trail)
 * const recent = await trail.query({ types: ['sign-in.'], since: Date.now() - 3_600_000 })
 */
export class FileAuditTrail implements PagedAuditTrail {
  readonly path: string
  readonly #log: Log
  readonly #rotateBytes: number
  readonly #maxFiles: number
  readonly #retentionMs: number
  readonly #followPollMs: number
  readonly #maxScanBytes: number
  #queue: string[] = []
  #writing: Promise<void> | undefined
  #file: LiveFile | undefined
  #sweeper: NodeJS.Timeout | undefined
  #lost = 0
  #failing = false
  #closed = false

  constructor(options: FileAuditTrailOptions) {
    this.path = join(options.dataDir, options.file ?? settings.file)
    this.#log = options.log ?? silentLog()
    this.#rotateBytes = options.rotateBytes ?? settings.rotateBytes
    this.#maxFiles = options.maxFiles ?? settings.maxFiles
    this.#retentionMs = options.retentionMs ?? settings.retentionMs
    this.#followPollMs = options.followPollMs ?? settings.followPollMs
    this.#maxScanBytes = options.maxScanBytes ?? settings.fileMaxScanBytes
  }

  /** Events dropped so far (a full queue, a failed write, after close). */
  lost(): number {
    return this.#lost
  }

  append(event: StoredAuditEvent): void {
    if (this.#closed || this.#queue.length >= settings.maxQueued) {
      this.#lose(1, this.#closed ? 'the trail is closed' : 'too many events wait for the disk')
      return
    }
    let line: string
    try {
      line = `${JSON.stringify(event)}\n`
    } catch {
      this.#lose(1, 'an event could not be written as JSON')
      return
    }
    this.#queue.push(line)
    // one batch per batchMs: the events of many requests in one write
    this.#writing ??= new Promise<void>((resolve) => setTimeout(resolve, settings.batchMs)).then(() => this.#writeQueued())
  }

  async flushed(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing
  }

  async close(): Promise<void> {
    await this.flushed()
    this.#closed = true
    clearInterval(this.#sweeper)
    const file = this.#file
    this.#file = undefined
    await file?.handle.close().catch(() => undefined)
  }

  async query(query: AuditQuery): Promise<StoredAuditEvent[]> {
    return (await this.page(query)).items
  }

  /**
   * Matching events newest first, up to the limit, and a cursor when older ones may follow: after
   * `limit` events, or after reading `fileMaxScanBytes` (a rare filter answers a short page).
   */
  async page(query: AuditPageQuery): Promise<AuditPage> {
    const limit = auditQueryLimit(query.limit, settings.queryLimit, settings.maxQueryLimit)
    const match = auditQueryMatch(query)
    const needles = [query.user, query.clientId].filter((value) => value !== undefined).map((value) => JSON.stringify(value).slice(1, -1))
    const cursor = parseCursor(query.cursor)
    const items: StoredAuditEvent[] = []
    let scanned = 0
    const files = [this.path, ...(await rotatedAuditFiles(this.path)).map(({ path }) => path)]
    let started = cursor === undefined
    for (const path of files) {
      const handle = await open(path, 'r').catch(() => undefined)
      if (handle === undefined) continue
      try {
        const info = await handle.stat()
        if (!started) {
          if (info.ino !== cursor?.ino) continue
          started = true
        }
        // every event of a file is older than its last write; the file system's clock may round
        // the write's time down (to the ms, to whole seconds on some), so allow for that
        if (query.since !== undefined && info.mtimeMs < query.since - MTIME_GRANULARITY_MS) return { items }
        const end = cursor !== undefined && info.ino === cursor.ino ? Math.min(cursor.offset, info.size) : info.size
        for await (const { line, start } of auditFileLinesBackwards(handle, end, settings.readChunkBytes)) {
          // at least one line per page, so the cursor always moves on
          if (scanned > 0 && scanned + line.length > this.#maxScanBytes) return { items, nextCursor: `f${info.ino}.${start + Buffer.byteLength(line)}` }
          scanned += line.length + 1
          // a cheap look before parsing: the user or client must appear in the line as JSON writes it
          if (needles.some((needle) => !line.includes(needle))) continue
          const event = parseEvent(line)
          if (event === undefined) continue
          if (query.since !== undefined && Date.parse(event.at) < query.since) return { items }
          if (!match(event)) continue
          items.push(event)
          if (items.length >= limit) return { items, nextCursor: `f${info.ino}.${start}` }
        }
      } finally {
        await handle.close().catch(() => undefined)
      }
    }
    return { items }
  }

  /**
   * Hands each matching event appended from now on to `onEvent`, until `signal` aborts: the live
   * file is polled (one stat each `followPollMs`), and followed across a rotation (the old file is
   * read to its end first).
   */
  async follow(query: AuditQuery, onEvent: (event: StoredAuditEvent) => void, signal: AbortSignal): Promise<void> {
    const match = auditQueryMatch(query)
    const chunk = settings.readChunkBytes
    const onLine = (line: string): void => {
      const event = parseEvent(line)
      if (event !== undefined && match(event)) onEvent(event)
    }
    // files read to their end (or older than the follow), by inode: a rotation renames, never
    // rewrites (a number per rotation while following: 16 MiB of events each)
    const done = new Set<number>()
    for (const file of (await this.#filesNewestFirst()) ?? []) if (file.path !== this.path) done.add(file.ino)
    let current = await openForFollow(this.path, true)
    try {
      while (!signal.aborted) {
        const waited = await sleep(this.#followPollMs, true, { signal }).catch(() => false)
        if (!waited) break
        if (current !== undefined) {
          current.position = await readAuditFileLinesFrom(current.handle, current.position, chunk, onLine)
          if ((await stat(this.path).catch(() => undefined))?.ino === current.ino) continue
        }
        // rotated, perhaps more than once since the last look (or not there yet): once the files
        // are all in place, the old one is read to its end, then each newer one oldest first
        const files = await this.#filesNewestFirst()
        if (files === undefined) continue
        if (current !== undefined) {
          await readAuditFileLinesFrom(current.handle, current.position, chunk, onLine)
          await current.handle.close().catch(() => undefined)
          done.add(current.ino)
          current = undefined
        }
        for (const file of files.slice(1).reverse()) {
          if (done.has(file.ino)) continue
          const rotated = await openForFollow(file.path, false)
          if (rotated === undefined) continue
          await readAuditFileLinesFrom(rotated.handle, 0, chunk, onLine).finally(() => rotated.handle.close().catch(() => undefined))
          done.add(rotated.ino)
        }
        current = await openForFollow(this.path, false)
        if (current !== undefined) current.position = await readAuditFileLinesFrom(current.handle, 0, chunk, onLine)
      }
    } finally {
      await current?.handle.close().catch(() => undefined)
    }
  }

  /**
   * The live file and the rotated ones, newest first, with their inodes; undefined while a
   * rotation is under way (the live file missing, a gap in the numbers): look again later.
   */
  async #filesNewestFirst(): Promise<Array<{ path: string; ino: number }> | undefined> {
    const files: Array<{ path: string; ino: number }> = []
    const rotated = await rotatedAuditFiles(this.path)
    if (rotated.some((file, i) => file.n !== i + 1)) return undefined
    for (const path of [this.path, ...rotated.map((file) => file.path)]) {
      const info = await stat(path).catch(() => undefined)
      // a file gone, or one seen twice: renamed while we looked
      if (info === undefined || files.some((file) => file.ino === info.ino)) return undefined
      files.push({ path, ino: info.ino })
    }
    return files
  }

  async #writeQueued(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const lines = this.#queue
        this.#queue = []
        try {
          await this.#write(Buffer.from(lines.join(''), 'utf8'))
          if (this.#failing) {
            this.#failing = false
            this.#log.warn({ file: this.path, lost: this.#lost }, 'audit trail: writing again')
          }
        } catch (error) {
          const file = this.#file
          this.#file = undefined
          await file?.handle.close().catch(() => undefined)
          this.#lose(lines.length, `cannot write ${this.path}: ${(error as Error).message}`)
        }
      }
    } finally {
      this.#writing = undefined
    }
  }

  async #write(bytes: Buffer): Promise<void> {
    let file = await this.#open()
    if (file.size > 0 && file.size + bytes.length > this.#rotateBytes) {
      this.#file = undefined
      await file.handle.close()
      await rotateAuditFile(this.path, this.#maxFiles)
      await sweepAuditFiles(this.path, this.#retentionMs, this.#maxFiles)
      file = await this.#open()
    }
    let written = 0
    while (written < bytes.length) written += (await file.handle.write(bytes, written, bytes.length - written)).bytesWritten
    file.size += bytes.length
  }

  /** The live file, opened for appending (0600); reopened when another process rotated or removed it. */
  async #open(): Promise<LiveFile> {
    if (this.#file !== undefined) {
      if (Date.now() - this.#file.checkedAt < settings.reopenCheckMs) return this.#file
      const now = await stat(this.path).catch(() => undefined)
      if (now?.ino === this.#file.ino) {
        this.#file.checkedAt = Date.now()
        return this.#file
      }
      await this.#file.handle.close().catch(() => undefined)
      this.#file = undefined
    }
    const handle = await open(this.path, 'a', 0o600)
    try {
      const info = await handle.stat()
      // a file someone else created, or loosened: the trail names who did what, for the owner only
      if ((info.mode & 0o077) !== 0) await handle.chmod(0o600)
      this.#file = { handle, ino: info.ino, size: info.size, checkedAt: Date.now() }
    } catch (error) {
      await handle.close().catch(() => undefined)
      throw error
    }
    if (this.#sweeper === undefined && !this.#closed) {
      void sweepAuditFiles(this.path, this.#retentionMs, this.#maxFiles).catch(() => undefined)
      this.#sweeper = setInterval(() => void sweepAuditFiles(this.path, this.#retentionMs, this.#maxFiles).catch(() => undefined), settings.retentionCheckMs)
      this.#sweeper.unref()
    }
    return this.#file
  }

  #lose(count: number, why: string): void {
    this.#lost += count
    if (this.#failing) return
    this.#failing = true
    this.#log.error({ file: this.path, lost: this.#lost }, `audit trail: events are being lost (${why}); check the disk and the data directory's permissions`)
  }
}

async function openForFollow(path: string, atEnd: boolean): Promise<{ handle: FileHandle; ino: number; position: number } | undefined> {
  const handle = await open(path, 'r').catch(() => undefined)
  if (handle === undefined) return undefined
  const info = await handle.stat()
  return { handle, ino: info.ino, position: atEnd ? info.size : 0 }
}

function parseCursor(cursor: string | undefined): { ino: number; offset: number } | undefined {
  if (cursor === undefined) return undefined
  const found = CURSOR.exec(cursor)
  if (found === null) throw new RangeError('not a cursor of this audit trail')
  return { ino: Number(found[1]), offset: Number(found[2]) }
}

function parseEvent(line: string): StoredAuditEvent | undefined {
  try {
    const event = JSON.parse(line) as StoredAuditEvent
    return typeof event === 'object' && event !== null && typeof event.type === 'string' && typeof event.at === 'string' ? event : undefined
  } catch {
    return undefined
  }
}
