import { dirname } from 'node:path'
import { Low } from 'lowdb'
import { defaults } from '../config/defaults.js'
import { DurableJsonFile } from './durable-json-file.js'
import { acquireFileLock } from './file-lock.js'
import { ensurePrivateDir, removeStaleTempFiles } from './private-file.js'
import type { AuthStorage, OidcAdapter, OidcPayload, RecordStore, StoredEntry } from './types.js'

/** The file format this build reads and writes. */
const VERSION = 1

type Table<V> = Record<string, V>
interface StoredModel {
  payload: OidcPayload
  /** Epoch ms; absent for records that never expire. */
  expiresAt?: number
}
interface StoreFile {
  version: typeof VERSION
  models: Table<Table<StoredModel>>
  records: Table<Table<object>>
}

/** Options of {@link createLowdbStorage}. */
export interface LowdbStorageOptions {
  /** Path of the JSON file; its directory is created 0700 and the file written 0600. */
  file: string
  /** How often (ms) expired records are swept from the file. Default `defaults.storage.sweepIntervalMs`. */
  sweepIntervalMs?: number
  /** Clock in epoch ms (tests inject one). */
  now?: () => number
}

// Ids come from clients and users (a username may well be "__proto__"), so tables have no prototype.
const table = <V>(entries: object = {}): Table<V> => Object.assign(Object.create(null) as Table<V>, entries)

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

function tablesOf<V>(value: unknown, where: string, check: (entry: unknown) => boolean): Table<Table<V>> {
  if (!isObject(value)) throw new Error(`${where} is not an object`)
  const tables = table<Table<V>>()
  for (const [name, entries] of Object.entries(value)) {
    if (!isObject(entries)) throw new Error(`${where}.${name} is not an object`)
    for (const [id, entry] of Object.entries(entries)) {
      if (!check(entry)) throw new Error(`${where}.${name}[${JSON.stringify(id)}] is malformed`)
    }
    tables[name] = table<V>(entries)
  }
  return tables
}

function parseStore(raw: unknown, file: string): StoreFile {
  if (!isObject(raw)) throw new Error(`storage file ${file} is not an mcp-auth store (expected a JSON object)`)
  if (raw['version'] !== VERSION) {
    throw new Error(
      `storage file ${file} has format version ${JSON.stringify(raw['version'])}; this build reads version ${VERSION} only (upgrade mcp-auth or restore a matching backup)`,
    )
  }
  try {
    return {
      version: VERSION,
      models: tablesOf<StoredModel>(raw['models'], 'models', (entry) => isObject(entry) && isObject(entry['payload'])),
      records: tablesOf<object>(raw['records'], 'records', isObject),
    }
  } catch (error) {
    throw new Error(`storage file ${file} is malformed: ${(error as Error).message}`, { cause: error })
  }
}

/**
 * Writes the store and remembers whether memory may be ahead of the file, so that a mutation which
 * changes nothing (destroying a missing id) still waits until the state it observed is durable.
 */
class Writes {
  readonly #db: Low<StoreFile>
  #outstanding = 0
  #lastFailed = false

  constructor(db: Low<StoreFile>) {
    this.#db = db
  }

  async persist(): Promise<void> {
    this.#outstanding += 1
    try {
      await this.#db.write()
      this.#lastFailed = false
    } catch (error) {
      this.#lastFailed = true
      throw error
    } finally {
      this.#outstanding -= 1
    }
  }

  async settle(): Promise<void> {
    if (this.#outstanding > 0 || this.#lastFailed) await this.persist()
  }
}

/** One oidc-provider model over its table in the file, with in-memory indexes for O(1) lookups. */
class LowdbModel implements OidcAdapter {
  readonly #records: Table<StoredModel>
  readonly #writes: Writes
  readonly #now: () => number
  readonly #byUid = new Map<string, string>()
  readonly #byUserCode = new Map<string, string>()
  readonly #byGrantId = new Map<string, Set<string>>()

  constructor(records: Table<StoredModel>, writes: Writes, now: () => number) {
    this.#records = records
    this.#writes = writes
    this.#now = now
    for (const [id, entry] of Object.entries(records)) this.#index(id, entry.payload)
    this.sweep()
  }

  async upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void> {
    this.#put(id, payload, expiresIn)
    await this.#writes.persist()
  }

  async create(id: string, payload: OidcPayload, expiresIn: number): Promise<boolean> {
    // one process owns the file and this runs without an await before the put: atomic
    if (this.#live(id) !== undefined) {
      await this.#writes.settle()
      return false
    }
    this.#put(id, payload, expiresIn)
    await this.#writes.persist()
    return true
  }

  #put(id: string, payload: OidcPayload, expiresIn: number | undefined): void {
    const previous: StoredModel | undefined = this.#records[id]
    if (previous !== undefined) this.#unindex(id, previous.payload)
    const entry: StoredModel = { payload: copy(payload) }
    if (expiresIn !== undefined) entry.expiresAt = this.#now() + expiresIn * 1000
    this.#records[id] = entry
    this.#index(id, entry.payload)
  }

  async find(id: string): Promise<OidcPayload | undefined> {
    const entry = this.#live(id)
    return entry === undefined ? undefined : copy(entry.payload)
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
    if (entry === undefined) return this.#writes.settle()
    this.#mark(id, entry, 'consumed')
    await this.#writes.persist()
  }

  async claim(id: string, field: string): Promise<boolean> {
    // one process owns the file and this runs without an await before the mark: atomic
    const entry = this.#live(id)
    if (entry === undefined || entry.payload[field] !== undefined) {
      await this.#writes.settle()
      return false
    }
    this.#mark(id, entry, field)
    await this.#writes.persist()
    return true
  }

  /** Sets `field` to the epoch second in a new entry (a changed record is a new revision). */
  #mark(id: string, entry: StoredModel, field: string): void {
    this.#records[id] = { ...entry, payload: { ...entry.payload, [field]: Math.floor(this.#now() / 1000) } }
  }

  async destroy(id: string): Promise<void> {
    const entry: StoredModel | undefined = this.#records[id]
    if (entry === undefined) return this.#writes.settle()
    this.#remove(id, entry)
    await this.#writes.persist()
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const ids = this.#byGrantId.get(grantId)
    if (ids === undefined) return this.#writes.settle()
    for (const id of [...ids]) {
      const entry: StoredModel | undefined = this.#records[id]
      if (entry !== undefined) this.#remove(id, entry)
    }
    await this.#writes.persist()
  }

  async list(): Promise<Array<{ id: string; payload: OidcPayload }>> {
    const live: Array<{ id: string; payload: OidcPayload }> = []
    for (const [id, entry] of Object.entries(this.#records)) if (!this.#expired(entry)) live.push({ id, payload: copy(entry.payload) })
    return live
  }

  /** Drops expired records from memory; true when any was dropped (the caller writes). */
  sweep(): boolean {
    let changed = false
    for (const [id, entry] of Object.entries(this.#records)) {
      if (this.#expired(entry)) {
        this.#remove(id, entry)
        changed = true
      }
    }
    return changed
  }

  #expired(entry: StoredModel): boolean {
    return entry.expiresAt !== undefined && entry.expiresAt <= this.#now()
  }

  /** The entry unless missing or expired. An expired one is dropped from memory only: it is dead on disk too, and the next write removes it. */
  #live(id: string): StoredModel | undefined {
    const entry: StoredModel | undefined = this.#records[id]
    if (entry === undefined || !this.#expired(entry)) return entry
    this.#remove(id, entry)
    return undefined
  }

  #remove(id: string, entry: StoredModel): void {
    delete this.#records[id]
    this.#unindex(id, entry.payload)
  }

  #index(id: string, payload: OidcPayload): void {
    if (typeof payload.uid === 'string') this.#byUid.set(payload.uid, id)
    if (typeof payload.userCode === 'string') this.#byUserCode.set(payload.userCode, id)
    if (typeof payload.grantId === 'string') {
      let ids = this.#byGrantId.get(payload.grantId)
      if (ids === undefined) this.#byGrantId.set(payload.grantId, (ids = new Set()))
      ids.add(id)
    }
  }

  #unindex(id: string, payload: OidcPayload): void {
    if (typeof payload.uid === 'string' && this.#byUid.get(payload.uid) === id) this.#byUid.delete(payload.uid)
    if (typeof payload.userCode === 'string' && this.#byUserCode.get(payload.userCode) === id) this.#byUserCode.delete(payload.userCode)
    if (typeof payload.grantId === 'string') {
      const ids = this.#byGrantId.get(payload.grantId)
      ids?.delete(id)
      if (ids?.size === 0) this.#byGrantId.delete(payload.grantId)
    }
  }
}

function recordStore(records: Table<Table<object>>, writes: Writes): RecordStore {
  return {
    async get<T extends object>(collection: string, id: string): Promise<T | undefined> {
      const value: object | undefined = records[collection]?.[id]
      return value === undefined ? undefined : (copy(value) as T)
    },
    async list<T extends object>(collection: string): Promise<T[]> {
      return Object.values(records[collection] ?? {}).map((value) => copy(value) as T)
    },
    async put(collection: string, id: string, value: object): Promise<void> {
      const entries = (records[collection] ??= table())
      entries[id] = copy(value)
      await writes.persist()
    },
    async create(collection: string, id: string, value: object): Promise<boolean> {
      const entries = (records[collection] ??= table())
      if (entries[id] !== undefined) {
        await writes.settle()
        return false
      }
      entries[id] = copy(value)
      await writes.persist()
      return true
    },
    async delete(collection: string, id: string): Promise<void> {
      const entries: Table<object> | undefined = records[collection]
      if (entries?.[id] === undefined) return writes.settle()
      delete entries[id]
      await writes.persist()
    },
  }
}

function checkInterval(ms: number): number {
  // setInterval turns anything outside 1..2^31-1 into 1 ms: a busy loop instead of a sweep.
  if (!Number.isInteger(ms) || ms < 1 || ms > 2 ** 31 - 1) throw new RangeError(`sweepIntervalMs must be an integer from 1 to ${2 ** 31 - 1}, got ${ms}`)
  return ms
}

/**
 * The embedded storage backend: oidc-provider's models and our own records in one JSON file,
 * served from memory and written durably (atomic replace + fsync, group-committed) before every
 * mutation resolves. Expired records are dropped on read and swept from the file periodically.
 *
 * @example
 * const storage = await createLowdbStorage({ file: join(defaults.storage.dataDir, defaults.storage.dbFile) })
 * const provider = new Provider(issuer, { adapter: createAdapterFactory(storage, options) })
 * // on shutdown
 * await storage.close()
 * @see https://github.com/panva/node-oidc-provider/blob/main/example/my_adapter.js
 */
export async function createLowdbStorage(options: LowdbStorageOptions): Promise<AuthStorage> {
  const now = options.now ?? Date.now
  const interval = checkInterval(options.sweepIntervalMs ?? defaults.storage.sweepIntervalMs)
  await ensurePrivateDir(dirname(options.file))
  const lock = acquireFileLock(options.file)
  await removeStaleTempFiles(options.file).catch((error: unknown) => {
    lock.release()
    throw error
  })
  const db = new Low<StoreFile>(new DurableJsonFile<StoreFile>(options.file), { version: VERSION, models: {}, records: {} })
  let data: StoreFile
  try {
    await db.read()
    data = db.data = parseStore(db.data, options.file)
  } catch (error) {
    lock.release()
    throw error
  }
  const writes = new Writes(db)

  const models = new Map<string, LowdbModel>()
  const model = (name: string): LowdbModel => {
    let found = models.get(name)
    if (found === undefined) {
      found = new LowdbModel((data.models[name] ??= table()), writes, now)
      models.set(name, found)
    }
    return found
  }
  for (const name of Object.keys(data.models)) model(name)

  const timer = setInterval(() => {
    let changed = false
    for (const each of models.values()) changed = each.sweep() || changed
    // A failed sweep write needs no handling here: the next write carries the whole state again.
    if (changed) writes.persist().catch(() => undefined)
  }, interval)
  timer.unref()

  return {
    adapter: model,
    records: recordStore(data.records, writes),
    async *entries(): AsyncIterable<StoredEntry> {
      const at = now()
      for (const [name, entries] of Object.entries(data.models)) {
        for (const [id, { payload, expiresAt }] of Object.entries(entries)) {
          if (expiresAt !== undefined && expiresAt <= at) continue
          yield expiresAt === undefined ? { kind: 'model', model: name, id, payload: copy(payload) } : { kind: 'model', model: name, id, payload: copy(payload), expiresAt }
        }
      }
      for (const [collection, entries] of Object.entries(data.records)) {
        for (const [id, value] of Object.entries(entries)) yield { kind: 'record', collection, id, value: copy(value) }
      }
    },
    async close() {
      clearInterval(timer)
      try {
        await writes.settle()
      } finally {
        lock.release()
      }
    },
  }
}
