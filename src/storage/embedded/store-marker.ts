import { readFile } from 'node:fs/promises'
import { defaults } from '../../config/defaults.js'
import { writePrivateFile } from '../private-file.js'

/** What a store's marker file (`<dataDir>/mcp-auth.json`) says: no store, a whole format-1 store, or format 2. */
export type StoreMarker = { version: 'none' } | { version: 1; store: Record<string, unknown> } | { version: 2 }

/**
 * Reads the marker file. Refuses, with the file named and what to do, one that does not parse, one
 * holding `null` (lowdb would have read that as "no file yet" and started empty over it) and a
 * format this build does not know: damage is never taken for a fresh store.
 */
export async function readStoreMarker(file: string): Promise<StoreMarker> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (text === undefined) return { version: 'none' }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw new Error(`storage file ${file} is corrupt (not valid JSON); refusing to use or overwrite it: restore it from a backup or move it away`, { cause: error })
  }
  if (raw === null) throw new Error(`storage file ${file} holds no data (null); refusing to start empty over it: restore it from a backup or move it away`)
  const version = typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>)['version'] : undefined
  if (version === 2) return { version: 2 }
  if (version === 1) return { version: 1, store: raw as Record<string, unknown> }
  throw new Error(`storage file ${file} has format version ${JSON.stringify(version)}; this build reads versions 1 and 2 (upgrade mcp-auth or restore a matching backup)`)
}

/** Writes the format-2 marker: it says where the data is, and an older build refuses it. */
export async function writeStoreMarker(file: string): Promise<void> {
  const s = defaults.storage
  await writePrivateFile(file, `${JSON.stringify({ version: 2, snapshot: s.snapshotFile, journal: `${s.journalFile}.<generation>` })}\n`)
}
