import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { defaults } from '../config/defaults.js'
import { readJsonFile, writePrivateFile } from '../storage/private-file.js'

/**
 * What a server on an embedded store leaves in its data directory while it listens
 * (`defaults.cli.serverFile`, 0600): how `mcp-auth status` reaches it.
 */
export interface ServerFile {
  pid: number
  /** A URL the server listens on, reachable from this machine. */
  url: string
  /** The key its health endpoint wants before it tells the store's figures (see status-key.ts). */
  key: string
}

const pathIn = (dataDir: string): string => join(dataDir, defaults.cli.serverFile)

/** Writes the server file of `dataDir` (0600, atomically). */
export async function writeServerFile(dataDir: string, file: ServerFile): Promise<void> {
  await writePrivateFile(pathIn(dataDir), `${JSON.stringify(file, null, 2)}\n`)
}

/** The server file of `dataDir`, if there is a well-formed one (its pid may be dead: see storage/file-lock.ts processAlive). */
export async function readServerFile(dataDir: string): Promise<ServerFile | undefined> {
  const file = await readJsonFile<Partial<ServerFile>>(pathIn(dataDir)).catch(() => undefined)
  if (file === undefined || typeof file.pid !== 'number' || typeof file.url !== 'string' || typeof file.key !== 'string') return undefined
  return { pid: file.pid, url: file.url, key: file.key }
}

/** Removes the server file of `dataDir` when it is the one process `pid` wrote. */
export async function removeServerFile(dataDir: string, pid = process.pid): Promise<void> {
  if ((await readServerFile(dataDir))?.pid === pid) await rm(pathIn(dataDir), { force: true })
}
