import { join } from 'node:path'
import { defaults } from '../../src/config/defaults.js'
import { inspectEmbeddedStore } from '../../src/storage/embedded/inspect-store.js'

/** What an embedded store holds, as plain objects: `models[model][id] = { payload, expiresAt? }`, `records[collection][id] = value`. */
export interface StoreContents {
  models: Record<string, Record<string, { payload: Record<string, unknown>; expiresAt?: number }>>
  records: Record<string, Record<string, Record<string, unknown>>>
}

/**
 * Reads the embedded store of a data directory (or of the marker file `mcp-auth.json` itself) from
 * its files, read-only, also beside a running server: what a restart would load.
 */
export async function storeContents(dataDirOrMarker: string, now?: number): Promise<StoreContents> {
  const marker = dataDirOrMarker.endsWith('.json') ? dataDirOrMarker : join(dataDirOrMarker, defaults.storage.dbFile)
  const { document } = await inspectEmbeddedStore(marker, now)
  const contents: StoreContents = { models: {}, records: {} }
  for (const [name, table] of document.models) {
    contents.models[name] = Object.fromEntries(
      [...table].map(([id, { json, expiresAt }]) => [id, expiresAt === undefined ? { payload: JSON.parse(json) } : { payload: JSON.parse(json), expiresAt }]),
    )
  }
  for (const [name, table] of document.records) contents.records[name] = Object.fromEntries(table) as StoreContents['records'][string]
  return contents
}

/** The store's files as text (snapshot and journals), for tests that look for what must never be stored. */
export async function storeText(dataDir: string): Promise<string> {
  const { readdir, readFile } = await import('node:fs/promises')
  const names = (await readdir(dataDir)).filter((name) => name.startsWith('mcp-auth.'))
  return (await Promise.all(names.map((name) => readFile(join(dataDir, name), 'utf8')))).join('\n')
}
