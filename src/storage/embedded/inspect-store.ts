import { readFile } from 'node:fs/promises'
import { loadStore, type TornTail } from './load-store.js'
import { countsOf, dropExpired, emptyDocument, type StoreDocument } from './store-document.js'
import { storeLayout } from './store-layout.js'
import { documentOfV1 } from './v1-store.js'

/** An embedded store as read from its files, without taking its lock or changing anything. */
export interface InspectedStore {
  /** `none`: no store there yet. */
  format: 1 | 2 | 'none'
  document: StoreDocument
  models: Record<string, number>
  collections: Record<string, number>
  snapshotBytes: number
  journalBytes: number
  /** The newest journal's generation (format 2). */
  generation?: number
  /** Epoch ms the snapshot was begun: the last compaction (format 2). */
  snapshotCreatedAt?: number
  /** An unfinished last batch the next start will drop (or a batch being written right now). */
  tornTail?: TornTail
}

async function inspectOnce(file: string, now: number): Promise<InspectedStore> {
  const layout = storeLayout(file)
  const text = await readFile(layout.marker, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  const none = { format: 'none' as const, document: emptyDocument(), models: {}, collections: {}, snapshotBytes: 0, journalBytes: 0 }
  if (text === undefined) return none
  let raw: Record<string, unknown>
  try {
    raw = JSON.parse(text) as Record<string, unknown>
  } catch (error) {
    throw new Error(`storage file ${file} is corrupt (not valid JSON)`, { cause: error })
  }
  if (raw?.['version'] === 1) {
    const document = documentOfV1(raw, file)
    dropExpired(document, now)
    return { format: 1, document, ...countsOf(document), snapshotBytes: Buffer.byteLength(text), journalBytes: 0 }
  }
  if (raw?.['version'] !== 2) throw new Error(`storage file ${file} has format version ${JSON.stringify(raw?.['version'])}; this build reads versions 1 and 2`)
  const loaded = await loadStore(layout, now)
  return {
    format: 2,
    document: loaded.document,
    ...countsOf(loaded.document),
    snapshotBytes: loaded.snapshotBytes,
    journalBytes: loaded.journalBytes + (loaded.tornTail?.bytes ?? 0),
    generation: loaded.generation,
    snapshotCreatedAt: loaded.snapshotCreatedAt,
    ...(loaded.tornTail !== undefined ? { tornTail: loaded.tornTail } : {}),
  }
}

/**
 * Reads the embedded store whose marker is `file` (`<dataDir>/mcp-auth.json`) read-only: the
 * records, their counts, the files' sizes. Takes no lock, so it also reads beside a running server
 * (a compaction replacing files underneath is retried).
 */
export async function inspectEmbeddedStore(file: string, now = Date.now()): Promise<InspectedStore> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inspectOnce(file, now)
    } catch (error) {
      if (attempt >= 3) throw error
    }
  }
}
