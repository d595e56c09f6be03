import { stat } from 'node:fs/promises'
import { loadStore, type TornTail } from './load-store.js'
import { countsOf, dropExpired, emptyDocument, type StoreDocument } from './store-document.js'
import { storeLayout } from './store-layout.js'
import { readStoreMarker } from './store-marker.js'
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
  const marker = await readStoreMarker(file)
  if (marker.version === 'none') return { format: 'none', document: emptyDocument(), models: {}, collections: {}, snapshotBytes: 0, journalBytes: 0 }
  if (marker.version === 1) {
    const document = documentOfV1(marker.store, file)
    dropExpired(document, now)
    return { format: 1, document, ...countsOf(document), snapshotBytes: (await stat(file)).size, journalBytes: 0 }
  }
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
