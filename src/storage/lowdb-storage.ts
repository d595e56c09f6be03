import { dirname } from 'node:path'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { Low } from 'lowdb'
import { defaults } from '../config/defaults.js'
import { JournaledStoreFile, type CompactionSettings, type EmbeddedStoreStats } from './embedded/journaled-store-file.js'
import { encodeLine, modelLine } from './embedded/record-line.js'
import { emptyDocument, storedModel, tableOf, type StoreDocument, type StoredModel } from './embedded/store-document.js'
import { acquireFileLock } from './file-lock.js'
import { ensurePrivateDir } from './private-file.js'
import { scanMap } from './scan-map.js'
import type { AuthStorage, OidcAdapter, OidcPayload, RecordStore, StoredEntry } from './types.js'

/** Options of {@link createLowdbStorage}. */
export interface LowdbStorageOptions {
  /**
   * Path of the store's marker file (`<dataDir>/mcp-auth.json`); the snapshot and journals go beside
   * it. Its directory is created 0700 and every file written 0600.
   */
  file: string
  /** How often (ms) expired records are swept from memory (and the sweep journaled). Default `defaults.storage.sweepIntervalMs`. */
  sweepIntervalMs?: number
  /** Clock in epoch ms (tests inject one). */
  now?: () => number
  /** Where the store reports what it did on its own (a migration, a torn tail dropped, a failed compaction). Default: stderr. */
  warn?: (message: string) => void
  /** When compactions run; default `defaults.storage.compaction`. */
  compaction?: Partial<CompactionSettings>
}

/** The embedded store: the storage seam, plus what its operator asks of it. */
export interface EmbeddedStorage extends AuthStorage {
  /** Writes a fresh snapshot now and starts a new journal (the store does it on its own as the journal grows). */
  compact(): Promise<void>
  stats(): EmbeddedStoreStats
  entries(): AsyncIterable<StoredEntry>
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T
const quote = JSON.stringify
/** Entries a sweep looks at between two yields to the event loop. */
const SWEEP_CHUNK = 4096

/** One oidc-provider model over its Map in the document, with in-memory indexes for O(1) lookups; every change is a journal line. */
class LowdbModel implements OidcAdapter {
  readonly #name: string
  readonly #records: Map<string, StoredModel>
  readonly #files: JournaledStoreFile
  readonly #now: () => number
  readonly #byUid = new Map<string, string>()
  readonly #byUserCode = new Map<string, string>()
  readonly #byGrantId = new Map<string, string | Set<string>>()

  constructor(name: string, records: Map<string, StoredModel>, files: JournaledStoreFile, now: () => number) {
    this.#name = name
    this.#records = records
    this.#files = files
    this.#now = now
    for (const [id, entry] of records) this.#index(id, entry)
  }

  upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void> {
    return this.#files.append(this.#put(id, payload, expiresIn === undefined ? undefined : this.#now() + expiresIn * 1000))
  }

  async create(id: string, payload: OidcPayload, expiresIn: number): Promise<boolean> {
    // one process owns the files and this runs without an await before the put: atomic
    if (this.#live(id) !== undefined) {
      await this.#files.flushed()
      return false
    }
    await this.#files.append(this.#put(id, payload, this.#now() + expiresIn * 1000))
    return true
  }

  /** Stores a new entry (the payload's JSON text: nobody else holds it) and returns its journal line. */
  #put(id: string, payload: OidcPayload, expiresAt: number | undefined): string {
    const previous = this.#records.get(id)
    if (previous !== undefined) this.#unindex(id, previous)
    const json = JSON.stringify(payload)
    const entry = storedModel(payload, json, expiresAt)
    this.#records.set(id, entry)
    this.#index(id, entry)
    return modelLine(this.#name, id, json, expiresAt, entry)
  }

  async find(id: string): Promise<OidcPayload | undefined> {
    const entry = this.#live(id)
    return entry === undefined ? undefined : (JSON.parse(entry.json) as OidcPayload)
  }

  async findByUid(uid: string): Promise<OidcPayload | undefined> {
    const id = this.#byUid.get(uid)
    return id === undefined ? undefined : this.find(id)
  }

  async findByUserCode(userCode: string): Promise<OidcPayload | undefined> {
    const id = this.#byUserCode.get(userCode)
    return id === undefined ? undefined : this.find(id)
  }

  revision(id: string): object | undefined {
    return this.#live(id)
  }

  async consume(id: string): Promise<void> {
    const entry = this.#live(id)
    if (entry === undefined) return this.#files.flushed()
    await this.#files.append(this.#mark(id, entry, 'consumed'))
  }

  async claim(id: string, field: string): Promise<boolean> {
    // one process owns the files and this runs without an await before the mark: atomic
    const entry = this.#live(id)
    if (entry === undefined || (JSON.parse(entry.json) as OidcPayload)[field] !== undefined) {
      await this.#files.flushed()
      return false
    }
    await this.#files.append(this.#mark(id, entry, field))
    return true
  }

  /** Sets `field` to the epoch second in a new entry (a changed record is a new revision). */
  #mark(id: string, entry: StoredModel, field: string): string {
    const payload = JSON.parse(entry.json) as OidcPayload
    payload[field] = Math.floor(this.#now() / 1000)
    return this.#put(id, payload, entry.expiresAt)
  }

  async destroy(id: string): Promise<void> {
    const entry = this.#records.get(id)
    if (entry === undefined) return this.#files.flushed()
    this.#remove(id, entry)
    await this.#files.append(encodeLine(`["x",${quote(this.#name)},[${quote(id)}]]`))
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const ids = this.#byGrantId.get(grantId)
    if (ids === undefined) return this.#files.flushed()
    const removed = typeof ids === 'string' ? [ids] : [...ids]
    for (const id of removed) {
      const entry = this.#records.get(id)
      if (entry !== undefined) this.#remove(id, entry)
    }
    await this.#files.append(encodeLine(`["x",${quote(this.#name)},${quote(removed)}]`))
  }

  async list(): Promise<Array<{ id: string; payload: OidcPayload }>> {
    const live: Array<{ id: string; payload: OidcPayload }> = []
    for (const [id, entry] of this.#records) if (!this.#expired(entry)) live.push({ id, payload: JSON.parse(entry.json) as OidcPayload })
    return live
  }

  /** Drops expired records from memory a chunk at a time, yielding between chunks; how many. */
  async sweep(): Promise<number> {
    let dropped = 0
    let seen = 0
    for (const [id, entry] of this.#records) {
      if (this.#expired(entry)) {
        this.#remove(id, entry)
        dropped += 1
      }
      if (++seen % SWEEP_CHUNK === 0) await yieldToLoop()
    }
    return dropped
  }

  #expired(entry: StoredModel): boolean {
    return entry.expiresAt !== undefined && entry.expiresAt <= this.#now()
  }

  /** The entry unless missing or expired. An expired one is dropped from memory only: it is dead in the files too (replay drops it). */
  #live(id: string): StoredModel | undefined {
    const entry = this.#records.get(id)
    if (entry === undefined || !this.#expired(entry)) return entry
    this.#remove(id, entry)
    return undefined
  }

  #remove(id: string, entry: StoredModel): void {
    this.#records.delete(id)
    this.#unindex(id, entry)
  }

  #index(id: string, keys: StoredModel): void {
    if (keys.uid !== undefined) this.#byUid.set(keys.uid, id)
    if (keys.userCode !== undefined) this.#byUserCode.set(keys.userCode, id)
    if (keys.grantId !== undefined) {
      // most grants have one record per model: a Set only from the second one on
      const ids = this.#byGrantId.get(keys.grantId)
      if (ids === undefined) this.#byGrantId.set(keys.grantId, id)
      else if (typeof ids === 'string') {
        if (ids !== id) this.#byGrantId.set(keys.grantId, new Set([ids, id]))
      } else ids.add(id)
    }
  }

  #unindex(id: string, keys: StoredModel): void {
    if (keys.uid !== undefined && this.#byUid.get(keys.uid) === id) this.#byUid.delete(keys.uid)
    if (keys.userCode !== undefined && this.#byUserCode.get(keys.userCode) === id) this.#byUserCode.delete(keys.userCode)
    if (keys.grantId !== undefined) {
      const ids = this.#byGrantId.get(keys.grantId)
      if (ids === id) this.#byGrantId.delete(keys.grantId)
      else if (typeof ids === 'object') {
        ids.delete(id)
        if (ids.size === 0) this.#byGrantId.delete(keys.grantId)
      }
    }
  }
}

function recordStore(document: StoreDocument, files: JournaledStoreFile): RecordStore {
  const put = (collection: string, id: string, value: object): string => {
    const json = JSON.stringify(value)
    tableOf(document.records, collection).set(id, JSON.parse(json) as object)
    return encodeLine(`["r",${quote(collection)},${quote(id)},${json}]`)
  }
  return {
    async get<T extends object>(collection: string, id: string): Promise<T | undefined> {
      const value = document.records.get(collection)?.get(id)
      return value === undefined ? undefined : (copy(value) as T)
    },
    async list<T extends object>(collection: string): Promise<T[]> {
      return [...(document.records.get(collection)?.values() ?? [])].map((value) => copy(value) as T)
    },
    put(collection: string, id: string, value: object): Promise<void> {
      return files.append(put(collection, id, value))
    },
    async create(collection: string, id: string, value: object): Promise<boolean> {
      if (document.records.get(collection)?.has(id) === true) {
        await files.flushed()
        return false
      }
      await files.append(put(collection, id, value))
      return true
    },
    async delete(collection: string, id: string): Promise<void> {
      const table = document.records.get(collection)
      if (table?.has(id) !== true) return files.flushed()
      table.delete(id)
      await files.append(encodeLine(`["y",${quote(collection)},${quote(id)}]`))
    },
    async putIfRevision(collection, id, value, revision) {
      // checked and written in one turn of the event loop: one process owns the file
      const current = document.records.get(collection)?.get(id) as { rev?: unknown } | undefined
      if (current === undefined || (current.rev ?? 0) !== revision) {
        await files.flushed()
        return false
      }
      await files.append(put(collection, id, value))
      return true
    },
    async scan<T extends object>(collection: string, options: { cursor?: string; count: number }) {
      return scanMap(document.records.get(collection), options.cursor, options.count, (value) => copy(value) as T)
    },
  }
}

function checkInterval(ms: number): number {
  // setInterval turns anything outside 1..2^31-1 into 1 ms: a busy loop instead of a sweep.
  if (!Number.isInteger(ms) || ms < 1 || ms > 2 ** 31 - 1) throw new RangeError(`sweepIntervalMs must be an integer from 1 to ${2 ** 31 - 1}, got ${ms}`)
  return ms
}

const toStderr = (message: string): void => {
  process.stderr.write(`${message}\n`)
}

/**
 * The embedded storage backend: oidc-provider's models and our own records in a lowdb document in
 * memory, loaded from a snapshot with the journal of later changes replayed over it. A write is
 * one journal line, group-committed (one fdatasync per batch) before it resolves; a compaction
 * writes a fresh snapshot in the background once the journal has grown past its bound. Expired
 * records are dropped on read and swept periodically. One process owns the files (a lock).
 * A format-1 store (one JSON file rewritten on every write) is migrated on first start, its file
 * kept as `mcp-auth.json.v1-backup`.
 *
 * @example
 * const storage = await createLowdbStorage({ file: join(defaults.storage.dataDir, defaults.storage.dbFile) })
 * const provider = new Provider(issuer, { adapter: createAdapterFactory(storage, options) })
 * // on shutdown
 * await storage.close()
 * @see https://github.com/panva/node-oidc-provider/blob/main/example/my_adapter.js
 */
export async function createLowdbStorage(options: LowdbStorageOptions): Promise<EmbeddedStorage> {
  const now = options.now ?? Date.now
  const interval = checkInterval(options.sweepIntervalMs ?? defaults.storage.sweepIntervalMs)
  await ensurePrivateDir(dirname(options.file))
  const lock = acquireFileLock(options.file)
  const files = new JournaledStoreFile(options.file, {
    now,
    warn: options.warn ?? toStderr,
    compaction: { ...defaults.storage.compaction, ...options.compaction },
  })
  const db = new Low<StoreDocument>(files, emptyDocument())
  try {
    await db.read()
  } catch (error) {
    lock.release()
    throw error
  }
  const document = db.data

  const models = new Map<string, LowdbModel>()
  const model = (name: string): LowdbModel => {
    let found = models.get(name)
    if (found === undefined) models.set(name, (found = new LowdbModel(name, tableOf(document.models, name), files, now)))
    return found
  }
  for (const name of document.models.keys()) model(name)

  let sweeping = false
  const sweep = async (): Promise<void> => {
    if (sweeping) return
    sweeping = true
    try {
      let dropped = 0
      for (const each of [...models.values()]) dropped += await each.sweep()
      // on replay, what had expired by this time is dropped: the files need no rewrite
      if (dropped > 0) await files.append(encodeLine(`["s",${now()}]`))
    } finally {
      sweeping = false
    }
  }
  // A failed sweep write needs no handling: the records are expired in the files as well.
  const timer = setInterval(() => void sweep().catch(() => undefined), interval)
  timer.unref()

  return {
    adapter: model,
    records: recordStore(document, files),
    compact: () => db.write(),
    stats: () => files.stats(),
    async *entries(): AsyncIterable<StoredEntry> {
      const at = now()
      for (const [name, entries] of document.models) {
        for (const [id, { json, expiresAt }] of entries) {
          if (expiresAt !== undefined && expiresAt <= at) continue
          const payload = JSON.parse(json) as OidcPayload
          yield expiresAt === undefined ? { kind: 'model', model: name, id, payload } : { kind: 'model', model: name, id, payload, expiresAt }
        }
      }
      for (const [collection, entries] of document.records) {
        for (const [id, value] of entries) yield { kind: 'record', collection, id, value: copy(value) }
      }
    },
    async close() {
      clearInterval(timer)
      try {
        await files.close()
      } finally {
        lock.release()
      }
    },
  }
}
