import { readdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { defaults } from '../../config/defaults.js'

/**
 * Where the embedded store's files are, from the path of its marker file (`mcp-auth.json` in the
 * data directory): the snapshot beside it, and journals named `<journalFile>.<generation>`.
 */
export interface StoreLayout {
  dir: string
  /** `mcp-auth.json`: the format version (2); in version 1 it held the whole store. */
  marker: string
  snapshot: string
  /** The v1 file kept after a migration. */
  v1Backup: string
  journal(generation: number): string
  /** The journals' name without a generation (temp files of their creation start with it). */
  journalBase: string
}

export function storeLayout(marker: string): StoreLayout {
  const dir = dirname(marker)
  const s = defaults.storage
  return {
    dir,
    marker,
    snapshot: join(dir, s.snapshotFile),
    v1Backup: `${marker}${s.v1BackupSuffix}`,
    journal: (generation) => join(dir, `${s.journalFile}.${generation}`),
    journalBase: join(dir, s.journalFile),
  }
}

/** The generations of the journals in the store's directory, ascending. */
export async function journalGenerations(layout: StoreLayout): Promise<number[]> {
  const prefix = `${defaults.storage.journalFile}.`
  const names = await readdir(layout.dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[]
    throw error
  })
  const generations: number[] = []
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    const rest = name.slice(prefix.length)
    if (/^[1-9][0-9]{0,15}$/.test(rest)) generations.push(Number(rest))
  }
  return generations.sort((a, b) => a - b)
}
