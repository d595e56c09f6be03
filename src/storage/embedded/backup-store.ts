import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { defaults } from '../../config/defaults.js'
import { closeFd, exists, openFd, readFd, statFd } from '../fd.js'
import { copyPrivateFile, ensurePrivateDir, writePrivateFileFrom } from '../private-file.js'
import { eachLine } from './line-reader.js'
import { decodeLine, headerOf } from './record-line.js'
import { StoreDamagedError } from './store-damaged-error.js'
import { journalGenerations, storeLayout, type StoreLayout } from './store-layout.js'
import { writeStoreMarker } from './store-marker.js'

/** What {@link backupEmbeddedStore} copied. */
export interface BackupWritten {
  /** The backup's files, in its directory. */
  files: string[]
  /** Bytes of store files copied. */
  bytes: number
}

/** The first `length` bytes of the open `fd`, a chunk at a time (each chunk is written before the next is read). */
async function* prefixOf(fd: number, length: number, file: string): AsyncGenerator<Uint8Array> {
  const buffer = Buffer.allocUnsafe(1 << 20)
  for (let position = 0; position < length; ) {
    const { bytesRead } = await readFd(fd, buffer, 0, Math.min(buffer.length, length - position), position)
    if (bytesRead === 0) throw new Error(`${file} shrank while it was copied`)
    yield buffer.subarray(0, bytesRead)
    position += bytesRead
  }
}

/** The generation a snapshot continues with, from its header line read on its open fd. */
async function snapshotGeneration(file: string, fd: number): Promise<number> {
  let found: number | string = 'it is empty'
  await eachLine(
    file,
    (line) => {
      const header = headerOf(line.terminated ? decodeLine(line.buffer, line.start, line.end) : 'cut short', 'mcp-auth-snapshot')
      found = typeof header === 'string' ? header : header.generation
      return false
    },
    { fd },
  )
  if (typeof found === 'string') throw new StoreDamagedError(file, 1, found)
  return found
}

/**
 * Where a journal's durable part ends, read from its open fd up to `size`: the end of its last
 * commit line. What follows it is a batch on its way to the disk; a bad line before a good commit
 * is damage, and the backup refuses it rather than stop short of it silently.
 */
async function committedLength(file: string, fd: number, size: number): Promise<number> {
  let end = 0
  let bad: { line: number; reason: string } | undefined
  await eachLine(
    file,
    (line) => {
      const decoded = line.terminated ? decodeLine(line.buffer, line.start, line.end) : 'cut short'
      if (typeof decoded === 'string') {
        bad ??= { line: line.number, reason: decoded }
        return
      }
      if (line.number === 1 || decoded[0] === 'c') {
        if (bad !== undefined) throw new StoreDamagedError(file, bad.line, bad.reason)
        end = line.next
      }
    },
    { fd, limit: size },
  )
  return end
}

interface Opened {
  snapshot: { fd: number; size: number }
  journals: Array<{ generation: number; fd: number; size: number }>
}

async function closeAll(opened: Opened): Promise<void> {
  await closeFd(opened.snapshot.fd).catch(() => undefined)
  for (const journal of opened.journals) await closeFd(journal.fd).catch(() => undefined)
}

/**
 * Holds open a consistent set of the store's files: the snapshot, and every journal from its
 * generation on. Once open they can be read at leisure (a compaction renaming or removing them
 * does not change open files). Retried when a compaction swapped the snapshot in between.
 */
async function openConsistent(layout: StoreLayout): Promise<Opened> {
  for (let attempt = 1; ; attempt++) {
    const fd = await openFd(layout.snapshot, 'r')
    const opened: Opened = { snapshot: { fd, size: (await statFd(fd)).size }, journals: [] }
    try {
      const from = await snapshotGeneration(layout.snapshot, fd)
      const generations = (await journalGenerations(layout)).filter((generation) => generation >= from)
      if (generations[0] !== from) throw new Error(`${layout.journal(from)} is gone (a compaction ended meanwhile)`)
      for (const generation of generations) {
        const journalFd = await openFd(layout.journal(generation), 'r')
        opened.journals.push({ generation, fd: journalFd, size: (await statFd(journalFd)).size })
      }
      return opened
    } catch (error) {
      await closeAll(opened)
      if (attempt >= 5) throw error
    }
  }
}

/**
 * Writes a consistent copy of the embedded store whose marker is `file` into the directory `to`
 * (created 0700; it must not hold a store), while a server may be running on it: every write
 * acknowledged before the backup began is in the copy. The copy is a data directory of its own: the
 * store's files, and the key files beside the store (signing keys, the secret that opens sealed
 * records), without which a restored store's clients and tokens would not work.
 */
export async function backupEmbeddedStore(file: string, to: string): Promise<BackupWritten> {
  const layout = storeLayout(file)
  const target = storeLayout(join(to, defaults.storage.dbFile))
  await ensurePrivateDir(to)
  if ((await readdir(to)).length > 0) throw new Error(`${to} is not empty: back up into a new directory`)
  const opened = await openConsistent(layout)
  const files: string[] = []
  let bytes = 0
  try {
    await writePrivateFileFrom(target.snapshot, prefixOf(opened.snapshot.fd, opened.snapshot.size, layout.snapshot))
    files.push(target.snapshot)
    bytes += opened.snapshot.size
    for (const journal of opened.journals) {
      const length = await committedLength(layout.journal(journal.generation), journal.fd, journal.size)
      await writePrivateFileFrom(target.journal(journal.generation), prefixOf(journal.fd, length, layout.journal(journal.generation)))
      files.push(target.journal(journal.generation))
      bytes += length
    }
  } finally {
    await closeAll(opened)
  }
  for (const name of [defaults.authServer.keys.secretsFile, defaults.authServer.keys.jwksFile]) {
    const from = join(layout.dir, name)
    if (!(await exists(from))) continue
    await copyPrivateFile(from, join(to, name))
    files.push(join(to, name))
  }
  // the marker last, and with it the directory fsynced: the copy is whole once this returns
  await writeStoreMarker(target.marker)
  files.push(target.marker)
  return { files, bytes }
}
