import { chmod, rm, stat } from 'node:fs/promises'
import type { Adapter } from 'lowdb'
import { closeFd, exists, openFd, syncFd, truncateFd, withFd } from '../fd.js'
import { copyPrivateFile, removeStaleTempFiles, writePrivateFile } from '../private-file.js'
import type { StorageStats } from '../types.js'
import { JournalWriter } from './journal-writer.js'
import { loadStore } from './load-store.js'
import { encodeLine } from './record-line.js'
import { writeSnapshot, SnapshotAbandoned } from './snapshot-writer.js'
import { countsOf, dropExpired, emptyDocument, type StoreDocument } from './store-document.js'
import { journalGenerations, storeLayout, type StoreLayout } from './store-layout.js'
import { readStoreMarker, writeStoreMarker } from './store-marker.js'
import { documentOfV1 } from './v1-store.js'

/** When a compaction runs (see defaults.storage.compaction). */
export interface CompactionSettings {
  minJournalBytes: number
  journalRatio: number
  chunkBytes: number
}

/** Options of {@link JournaledStoreFile}. */
export interface JournaledStoreFileOptions {
  now: () => number
  /** Where the store says what it did on its own (a migration, a torn tail dropped, a failed compaction). */
  warn: (message: string) => void
  compaction: CompactionSettings
}

/** The last compaction's figures. */
export interface CompactionFacts {
  /** Epoch ms it finished (for the snapshot read at start: when that snapshot was begun). */
  at: number
  durationMs?: number
  records?: number
  bytes?: number
}

/** What the embedded store holds and how its files stand (`mcp-auth status`). */
export interface EmbeddedStoreStats extends StorageStats {
  backend: 'embedded'
  format: 2
  snapshotBytes: number
  journalBytes: number
  /** The generation of the journal being written. */
  generation: number
  lastCompaction: CompactionFacts
  compacting: boolean
}

/** How long a failed compaction waits before the journal's growth may start another (ms). */
const RETRY_AFTER_FAILURE_MS = 60_000

/**
 * lowdb's adapter for the embedded store in format 2: `read` loads the snapshot and replays the
 * journals over it (migrating a format-1 file, creating a fresh store, cutting a torn tail);
 * `write` is a compaction (a fresh snapshot written in the background, the journal started anew).
 * Between the two, every change is appended to the journal ({@link append}), group-committed.
 */
export class JournaledStoreFile implements Adapter<StoreDocument> {
  readonly layout: StoreLayout
  readonly #options: JournaledStoreFileOptions
  #document: StoreDocument | undefined
  #writer: JournalWriter | undefined
  #generation = 0
  #snapshotBytes = 0
  /** Bytes of journals before the current one that a compaction has not removed yet. */
  #olderJournalBytes = 0
  #compaction: Promise<void> | undefined
  #retryAt = 0
  #closing = false
  #lastCompaction: CompactionFacts = { at: 0 }

  constructor(marker: string, options: JournaledStoreFileOptions) {
    this.layout = storeLayout(marker)
    this.#options = options
  }

  async read(): Promise<StoreDocument> {
    const { layout } = this
    for (const file of [layout.marker, layout.snapshot, layout.journalBase]) await removeStaleTempFiles(file)
    const marker = await readStoreMarker(layout.marker)
    if (marker.version === 2) return this.#open()
    if (marker.version === 1) return this.#migrate(marker.store)
    if (!(await exists(layout.snapshot))) return this.#create(emptyDocument())
    this.#options.warn(`storage: ${layout.marker} was missing beside its snapshot; written again`)
    await writeStoreMarker(layout.marker)
    return this.#open()
  }

  /** Migrates a format-1 store: the same records in a snapshot, the old file kept beside it. */
  async #migrate(raw: Record<string, unknown>): Promise<StoreDocument> {
    const { layout } = this
    const document = documentOfV1(raw, layout.marker)
    dropExpired(document, this.#options.now())
    await copyPrivateFile(layout.marker, layout.v1Backup)
    await this.#create(document)
    const { models, collections } = countsOf(document)
    const count = [...Object.values(models), ...Object.values(collections)].reduce((sum, n) => sum + n, 0)
    this.#options.warn(
      `storage: migrated ${layout.marker} from format 1 to format 2 (${count} records, snapshot and journal beside it); the old file is kept as ${layout.v1Backup}`,
    )
    return document
  }

  /** Starts a store holding `document`: journal 1, a snapshot continuing with it, then the marker (last: until then a start begins again). */
  async #create(document: StoreDocument): Promise<StoreDocument> {
    const { layout } = this
    const journal = await this.#createJournal(1)
    try {
      const written = await writeSnapshot(layout.snapshot, document, { generation: 1, now: this.#options.now(), chunkBytes: this.#options.compaction.chunkBytes })
      await writeStoreMarker(layout.marker)
      this.#snapshotBytes = written.bytes
    } catch (error) {
      await closeFd(journal.fd).catch(() => undefined)
      throw error
    }
    this.#generation = 1
    this.#lastCompaction = { at: this.#options.now() }
    this.#writer = new JournalWriter(journal.fd, journal.size)
    this.#document = document
    return document
  }

  async #open(): Promise<StoreDocument> {
    const { layout } = this
    const loaded = await loadStore(layout, this.#options.now())
    const file = layout.journal(loaded.generation)
    if (loaded.tornTail !== undefined) {
      const { tornTail } = loaded
      await withFd(file, 'r+', undefined, async (fd) => {
        await truncateFd(fd, tornTail.cutAt)
        await syncFd(fd)
      })
      this.#options.warn(
        `storage: dropped the unfinished last batch of ${file} (line ${tornTail.line} on, ${tornTail.lines} line(s), ${tornTail.bytes} bytes): a write a crash interrupted, never acknowledged`,
      )
    }
    for (const generation of loaded.staleGenerations) await rm(layout.journal(generation), { force: true })
    // someone may have loosened them (a copy, an editor): they hold tokens and hashes
    for (const each of [
      layout.marker,
      layout.snapshot,
      ...Array.from({ length: loaded.generation - loaded.snapshotGeneration + 1 }, (_, i) => layout.journal(loaded.snapshotGeneration + i)),
    ]) {
      if (((await stat(each)).mode & 0o077) !== 0) await chmod(each, 0o600)
    }
    const fd = await openFd(file, 'a', 0o600)
    this.#writer = new JournalWriter(fd, loaded.newestJournalSize)
    this.#generation = loaded.generation
    this.#snapshotBytes = loaded.snapshotBytes
    this.#olderJournalBytes = loaded.journalBytes - loaded.newestJournalSize
    this.#lastCompaction = { at: loaded.snapshotCreatedAt }
    this.#document = loaded.document
    return loaded.document
  }

  /** A new journal with its header, made durable before anything is appended (a crash leaves it whole or absent). */
  async #createJournal(generation: number): Promise<{ fd: number; size: number }> {
    const header = encodeLine(JSON.stringify(['h', { format: 'mcp-auth-journal', version: 2, generation, createdAt: this.#options.now() }]))
    const file = this.layout.journal(generation)
    await writePrivateFile(file, header)
    return { fd: await openFd(file, 'a', 0o600), size: Buffer.byteLength(header) }
  }

  /**
   * lowdb's write: a compaction whose snapshot holds every write made before the call (one at a
   * time: while one runs, this one follows it).
   */
  write(): Promise<void> {
    const running = this.#compaction
    return running === undefined ? this.#startOne() : running.catch(() => undefined).then(() => this.#startOne())
  }

  /** A compaction, unless one is running: then that one. */
  #startOne(): Promise<void> {
    this.#compaction ??= this.#compact().finally(() => {
      this.#compaction = undefined
    })
    return this.#compaction
  }

  async #compact(): Promise<void> {
    const writer = this.#writer
    const document = this.#document
    if (writer === undefined || document === undefined) throw new Error('the store is not open')
    const started = this.#options.now()
    const next = this.#generation + 1
    const journal = await this.#createJournal(next)
    this.#olderJournalBytes += writer.size
    writer.switchTo(journal.fd, journal.size)
    this.#generation = next
    const written = await writeSnapshot(this.layout.snapshot, document, {
      generation: next,
      now: started,
      chunkBytes: this.#options.compaction.chunkBytes,
      stop: () => this.#closing,
    })
    this.#snapshotBytes = written.bytes
    for (const generation of await journalGenerations(this.layout)) if (generation < next) await rm(this.layout.journal(generation), { force: true })
    this.#olderJournalBytes = 0
    const at = this.#options.now()
    this.#lastCompaction = { at, durationMs: at - started, records: written.records, bytes: written.bytes }
  }

  /** Appends encoded change lines; resolves once durable. Starts a compaction when the journal has grown past its bound. */
  append(lines: string, count = 1): Promise<void> {
    const writer = this.#writer
    if (writer === undefined) return Promise.reject(new Error('the store is not open'))
    const durable = writer.append(lines, count)
    const { minJournalBytes, journalRatio } = this.#options.compaction
    if (writer.size > minJournalBytes && writer.size > this.#snapshotBytes * journalRatio && this.#compaction === undefined && !this.#closing) this.#startCompaction()
    return durable
  }

  #startCompaction(): void {
    const at = this.#options.now()
    if (at < this.#retryAt) return
    this.#startOne().catch((error: unknown) => {
      if (error instanceof SnapshotAbandoned || this.#closing) return
      this.#retryAt = this.#options.now() + RETRY_AFTER_FAILURE_MS
      this.#options.warn(
        `storage: compaction failed (${(error as Error).message}); the journal keeps every write and another attempt follows in ${RETRY_AFTER_FAILURE_MS / 1000} s`,
      )
    })
  }

  /** Resolves once everything appended so far is durable. */
  flushed(): Promise<void> {
    return this.#writer?.flushed() ?? Promise.resolve()
  }

  stats(): EmbeddedStoreStats {
    const counts = this.#document === undefined ? { models: {}, collections: {} } : countsOf(this.#document)
    return {
      backend: 'embedded',
      format: 2,
      ...counts,
      snapshotBytes: this.#snapshotBytes,
      journalBytes: this.#olderJournalBytes + (this.#writer?.size ?? 0),
      generation: this.#generation,
      lastCompaction: this.#lastCompaction,
      compacting: this.#compaction !== undefined,
    }
  }

  /** Abandons a compaction under way (the journals keep everything), waits for appended writes, closes the journal. */
  async close(): Promise<void> {
    this.#closing = true
    await this.#compaction?.catch(() => undefined)
    await this.#writer?.close()
  }
}
