import { scanMap } from './scan-map.js'
import type { AuthStorage, OidcAdapter, OidcPayload, RecordStore } from './types.js'

interface Entry {
  payload: OidcPayload
  /** Epoch ms; absent for records that never expire. */
  expiresAt?: number
}

/** Options of {@link createMemoryStorage}. */
export interface MemoryStorageOptions {
  /** Clock in epoch ms (tests inject one). */
  now?: () => number
}

// A JSON round trip, so values behave exactly as they would after a trip through a file backend.
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

function memoryModel(entries: Map<string, Entry>, now: () => number): OidcAdapter {
  const live = (id: string): Entry | undefined => {
    const entry = entries.get(id)
    if (entry?.expiresAt !== undefined && entry.expiresAt <= now()) {
      entries.delete(id)
      return undefined
    }
    return entry
  }
  // Linear scans keep this backend obviously correct; it is meant for tests, not for load.
  const idWhere = (matches: (payload: OidcPayload) => boolean): string | undefined => {
    for (const [id, entry] of entries) if (matches(entry.payload)) return id
    return undefined
  }
  // a changed record is a new entry: its revision (the entry object) changes with it
  const mark = (id: string, entry: Entry, field: string): void => {
    entries.set(id, { ...entry, payload: { ...entry.payload, [field]: Math.floor(now() / 1000) } })
  }
  const find = async (id: string): Promise<OidcPayload | undefined> => {
    const entry = live(id)
    return entry === undefined ? undefined : copy(entry.payload)
  }
  return {
    async upsert(id, payload, expiresIn) {
      entries.set(id, expiresIn === undefined ? { payload: copy(payload) } : { payload: copy(payload), expiresAt: now() + expiresIn * 1000 })
    },
    find,
    async findByUid(uid) {
      const id = idWhere((payload) => payload.uid === uid)
      return id === undefined ? undefined : find(id)
    },
    async findByUserCode(userCode) {
      const id = idWhere((payload) => payload.userCode === userCode)
      return id === undefined ? undefined : find(id)
    },
    async consume(id) {
      const entry = live(id)
      if (entry !== undefined) mark(id, entry, 'consumed')
    },
    async create(id, payload, expiresIn) {
      if (live(id) !== undefined) return false
      // a created record (a used jti) is seldom read again, so expiry on read would never drop it:
      // expired ones go here, so claims do not pile up
      for (const [other, entry] of entries) if (entry.expiresAt !== undefined && entry.expiresAt <= now()) entries.delete(other)
      entries.set(id, { payload: copy(payload), expiresAt: now() + expiresIn * 1000 })
      return true
    },
    async claim(id, field) {
      const entry = live(id)
      if (entry === undefined || entry.payload[field] !== undefined) return false
      mark(id, entry, field)
      return true
    },
    revision: live,
    async destroy(id) {
      entries.delete(id)
    },
    async revokeByGrantId(grantId) {
      for (const [id, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(id)
    },
    async list() {
      return [...entries.keys()].flatMap((id) => {
        const entry = live(id)
        return entry === undefined ? [] : [{ id, payload: copy(entry.payload) }]
      })
    },
  }
}

function memoryRecords(): RecordStore {
  const collections = new Map<string, Map<string, object>>()
  return {
    async get<T extends object>(collection: string, id: string): Promise<T | undefined> {
      const value = collections.get(collection)?.get(id)
      return value === undefined ? undefined : (copy(value) as T)
    },
    async list<T extends object>(collection: string): Promise<T[]> {
      return [...(collections.get(collection)?.values() ?? [])].map((value) => copy(value) as T)
    },
    async put(collection: string, id: string, value: object): Promise<void> {
      let entries = collections.get(collection)
      if (entries === undefined) collections.set(collection, (entries = new Map()))
      entries.set(id, copy(value))
    },
    async create(collection: string, id: string, value: object): Promise<boolean> {
      let entries = collections.get(collection)
      if (entries === undefined) collections.set(collection, (entries = new Map()))
      if (entries.has(id)) return false
      entries.set(id, copy(value))
      return true
    },
    async delete(collection: string, id: string): Promise<void> {
      collections.get(collection)?.delete(id)
    },
    async putIfRevision(collection, id, value, revision) {
      const entries = collections.get(collection)
      const current = entries?.get(id) as { rev?: unknown } | undefined
      if (entries === undefined || current === undefined || (current.rev ?? 0) !== revision) return false
      entries.set(id, copy(value))
      return true
    },
    async scan<T extends object>(collection: string, options: { cursor?: string; count: number }) {
      return scanMap(collections.get(collection), options.cursor, options.count, (value) => copy(value) as T)
    },
  }
}

/**
 * A storage backend held in memory only, with the same semantics as the lowdb one (expiry on
 * read, copies in and out, consume/revoke rules). For tests, and as the plainest reference for
 * writing another backend. Everything is lost when the process ends.
 *
 * @example
 * let clock = Date.now()
 * const storage = createMemoryStorage({ now: () => clock })
 * await storage.adapter('AuthorizationCode').upsert('code-1', { grantId: 'g1' }, 60)
 * clock += 61_000
 * await storage.adapter('AuthorizationCode').find('code-1') // undefined: expired
 * @see https://github.com/panva/node-oidc-provider/blob/main/example/my_adapter.js
 */
export function createMemoryStorage(options: MemoryStorageOptions = {}): AuthStorage {
  const now = options.now ?? Date.now
  const models = new Map<string, OidcAdapter>()
  return {
    adapter(name) {
      let model = models.get(name)
      if (model === undefined) models.set(name, (model = memoryModel(new Map(), now)))
      return model
    },
    records: memoryRecords(),
    async close() {},
  }
}
