import type { OidcPayload } from '../types.js'
import type { RecordKeys, StoreLine } from './record-line.js'

/**
 * One oidc-provider record in memory: its payload as JSON text (a read parses its own copy; a
 * snapshot writes it as it is), its expiry, and the keys it is indexed by. Never changed in place:
 * a write puts a new object (its revision).
 */
export interface StoredModel extends RecordKeys {
  json: string
  /** Epoch ms; absent for records that never expire. */
  expiresAt?: number
}

/** A stored record from its payload: its JSON text and index keys. */
export function storedModel(payload: OidcPayload, json: string, expiresAt: number | undefined): StoredModel {
  const entry: StoredModel = { json }
  if (expiresAt !== undefined) entry.expiresAt = expiresAt
  if (typeof payload.grantId === 'string') entry.grantId = payload.grantId
  if (typeof payload.uid === 'string') entry.uid = payload.uid
  if (typeof payload.userCode === 'string') entry.userCode = payload.userCode
  return entry
}

/**
 * The embedded store's in-memory document, the one lowdb holds: oidc-provider's models and our
 * collections, each a Map by id (ids come from clients and users: a Map has no prototype to
 * collide with, and its iterators stay valid while a compaction walks it and writes go on).
 */
export interface StoreDocument {
  models: Map<string, Map<string, StoredModel>>
  records: Map<string, Map<string, object>>
}

export const emptyDocument = (): StoreDocument => ({ models: new Map(), records: new Map() })

export function tableOf<V>(tables: Map<string, Map<string, V>>, name: string): Map<string, V> {
  let table = tables.get(name)
  if (table === undefined) tables.set(name, (table = new Map()))
  return table
}

/** Applies one change line of a snapshot or journal (structure lines change nothing); returns the sweep time of an `s` line. */
export function applyLine(document: StoreDocument, line: StoreLine): number | undefined {
  switch (line[0]) {
    case 'm': {
      const [, model, id, expiresAt, grantId, uid, userCode, json] = line
      const entry: StoredModel = { json }
      if (expiresAt !== null) entry.expiresAt = expiresAt
      if (grantId !== null) entry.grantId = grantId
      if (uid !== null) entry.uid = uid
      if (userCode !== null) entry.userCode = userCode
      tableOf(document.models, model).set(id, entry)
      return undefined
    }
    case 'x': {
      const table = document.models.get(line[1])
      if (table !== undefined) for (const id of line[2]) table.delete(id)
      return undefined
    }
    case 'r':
      tableOf(document.records, line[1]).set(line[2], line[3])
      return undefined
    case 'y':
      document.records.get(line[1])?.delete(line[2])
      return undefined
    case 's':
      return line[1]
    default:
      return undefined
  }
}

/** Drops every model record expired at `at` (epoch ms); how many were dropped. */
export function dropExpired(document: StoreDocument, at: number): number {
  let dropped = 0
  for (const table of document.models.values()) {
    for (const [id, entry] of table) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= at) {
        table.delete(id)
        dropped += 1
      }
    }
  }
  return dropped
}

/** Record counts per model and per collection. */
export function countsOf(document: StoreDocument): { models: Record<string, number>; collections: Record<string, number> } {
  const models: Record<string, number> = {}
  const collections: Record<string, number> = {}
  for (const [name, table] of document.models) if (table.size > 0) models[name] = table.size
  for (const [name, table] of document.records) if (table.size > 0) collections[name] = table.size
  return { models, collections }
}
