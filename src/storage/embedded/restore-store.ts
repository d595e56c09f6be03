import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { defaults } from '../../config/defaults.js'
import { exists } from '../fd.js'
import { acquireFileLock } from '../file-lock.js'
import { copyPrivateFile, ensurePrivateDir } from '../private-file.js'
import { inspectEmbeddedStore, type InspectedStore } from './inspect-store.js'
import { journalGenerations, storeLayout } from './store-layout.js'
import { writeStoreMarker } from './store-marker.js'

/**
 * Restores a backup directory (see backupEmbeddedStore) into the data directory `to`: checks every
 * line of the backup first, refuses a data directory that holds a store already or other key files
 * (move them away first), and while a server runs on it (the store's lock). The marker is written
 * last: an interrupted restore leaves no store that would start.
 */
export async function restoreEmbeddedStore(from: string, to: string): Promise<InspectedStore> {
  const source = storeLayout(join(from, defaults.storage.dbFile))
  const inspected = await inspectEmbeddedStore(source.marker)
  if (inspected.format !== 2) throw new Error(`${from} holds no backup of an embedded store (no ${defaults.storage.dbFile} of format 2 there)`)
  if (inspected.tornTail !== undefined) throw new Error(`${inspected.tornTail.file} ends with an unfinished batch: not a backup written by mcp-auth backup`)
  await ensurePrivateDir(to)
  const target = storeLayout(join(to, defaults.storage.dbFile))
  const lock = acquireFileLock(target.marker)
  try {
    if ((await exists(target.marker)) || (await exists(target.snapshot)) || (await journalGenerations(target)).length > 0) {
      throw new Error(
        `${to} holds a store already: move its ${defaults.storage.dbFile}, ${defaults.storage.snapshotFile} and ${defaults.storage.journalFile}.* away first (or restore into a new directory)`,
      )
    }
    for (const name of [defaults.authServer.keys.secretsFile, defaults.authServer.keys.jwksFile]) {
      const key = join(from, name)
      if (!(await exists(key))) continue
      const there = join(to, name)
      if (await exists(there)) {
        if (!(await readFile(there)).equals(await readFile(key)))
          throw new Error(`${there} differs from the backup's: move it away first (the restored store's sealed records and tokens need the backup's keys)`)
        continue
      }
      await copyPrivateFile(key, there)
    }
    for (const generation of await journalGenerations(source)) {
      await copyPrivateFile(source.journal(generation), target.journal(generation))
    }
    await copyPrivateFile(source.snapshot, target.snapshot)
    await writeStoreMarker(target.marker)
  } finally {
    lock.release()
  }
  return inspected
}
