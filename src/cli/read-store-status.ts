import { join } from 'node:path'
import { defaults } from '../config/defaults.js'
import { inspectEmbeddedStore } from '../storage/embedded/inspect-store.js'
import { processAlive } from '../storage/file-lock.js'
import { readServerFile } from './server-file.js'

/** An embedded store's figures, as the running server or its files tell them. */
export interface StoreFigures {
  backend: 'embedded'
  format: 1 | 2
  models: Record<string, number>
  collections: Record<string, number>
  snapshotBytes: number
  journalBytes: number
  generation?: number
  /** When the snapshot was written (for one read at start: when it was begun), how long it took, what it held. */
  lastCompaction?: { at: number; durationMs?: number; records?: number; bytes?: number }
  /** A compaction is under way (the running server only). */
  compacting?: boolean
  /** An unfinished last batch in the files, which the next start drops (files only). */
  tornTail?: { file: string; line: number; bytes: number }
}

/** What `mcp-auth status` found: the figures, where they came from, and the server that owns the directory. */
export interface StoreStatus extends StoreFigures {
  source: 'server' | 'files'
  server: { running: boolean; pid?: number; url?: string; version?: string; uptimeSeconds?: number }
  /** Why the figures come from the files although a server file is there (a stale file, a server that did not answer). */
  note?: string
}

/** What the running server's health endpoint adds for a caller with the key. */
interface ServerDetails {
  storage?: StoreFigures
  version?: string
  pid?: number
  uptimeSeconds?: number
}

/** Asks the server at `url` for its details with `key`; the reason when it could not. */
async function askServer(url: string, key: string): Promise<ServerDetails | string> {
  try {
    const response = await fetch(`${url}${defaults.cli.healthPath}`, {
      headers: { [defaults.cli.statusKeyHeader]: key },
      signal: AbortSignal.timeout(defaults.cli.statusTimeoutMs),
    })
    const body = (await response.json()) as ServerDetails
    return typeof body.storage === 'object' && body.storage !== null ? body : `its health endpoint answered ${response.status} without the store's figures`
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/** The store's files read read-only (no lock: also beside a running server). */
async function fromFiles(dataDir: string): Promise<StoreFigures> {
  const inspected = await inspectEmbeddedStore(join(dataDir, defaults.storage.dbFile))
  if (inspected.format === 'none') throw new Error(`${dataDir} holds no embedded store (no ${defaults.storage.dbFile}): give the data directory of a server with --data-dir`)
  const { format, models, collections, snapshotBytes, journalBytes, generation, snapshotCreatedAt, tornTail } = inspected
  return {
    backend: 'embedded',
    format,
    models,
    collections,
    snapshotBytes,
    journalBytes,
    ...(generation !== undefined ? { generation } : {}),
    ...(snapshotCreatedAt !== undefined ? { lastCompaction: { at: snapshotCreatedAt } } : {}),
    ...(tornTail !== undefined ? { tornTail: { file: tornTail.file, line: tornTail.line, bytes: tornTail.bytes } } : {}),
  }
}

/**
 * The embedded store of `dataDir` as `mcp-auth status` shows it: from the server that owns it when
 * one runs (its server file names it, its health endpoint answers the file's key), else from the
 * files, read-only.
 */
export async function readStoreStatus(dataDir: string): Promise<StoreStatus> {
  const file = await readServerFile(dataDir)
  if (file === undefined) return { ...(await fromFiles(dataDir)), source: 'files', server: { running: false } }
  if (!processAlive(file.pid)) {
    const note = `${defaults.cli.serverFile} names pid ${file.pid}, which is not running (it ended without removing the file)`
    return { ...(await fromFiles(dataDir)), source: 'files', server: { running: false }, note }
  }
  const answer = await askServer(file.url, file.key)
  const server = { running: true, pid: file.pid, url: file.url }
  if (typeof answer === 'string') return { ...(await fromFiles(dataDir)), source: 'files', server, note: `pid ${file.pid} did not answer at ${file.url} (${answer})` }
  const { storage, version, uptimeSeconds } = answer
  return {
    ...(storage as StoreFigures),
    source: 'server',
    server: { ...server, ...(version !== undefined ? { version } : {}), ...(uptimeSeconds !== undefined ? { uptimeSeconds } : {}) },
  }
}
