import { stat } from 'node:fs/promises'
import { eachLine } from './line-reader.js'
import { decodeLine, headerOf, type StoreLine } from './record-line.js'
import { StoreDamagedError } from './store-damaged-error.js'
import { applyLine, dropExpired, emptyDocument, type StoreDocument } from './store-document.js'
import { journalGenerations, type StoreLayout } from './store-layout.js'

/** A journal's unfinished last batch (a crash mid-append): never acknowledged, dropped. */
export interface TornTail {
  file: string
  /** The first line dropped (1-based). */
  line: number
  lines: number
  bytes: number
  /** The file's length once it is cut off. */
  cutAt: number
}

/** What {@link loadStore} read. */
export interface LoadedStore {
  document: StoreDocument
  /** The generation the snapshot continues with, and of the newest journal. */
  snapshotGeneration: number
  generation: number
  snapshotBytes: number
  /** Bytes of the journals replayed (the newest one after its torn tail is cut). */
  journalBytes: number
  /** Length of the newest journal once its torn tail, if any, is cut. */
  newestJournalSize: number
  tornTail?: TornTail
  /** Journals older than the snapshot (a compaction ended before removing them). */
  staleGenerations: number[]
  /** Epoch ms of the snapshot's creation (the last compaction). */
  snapshotCreatedAt: number
  /** Change lines replayed from the journals. */
  journalChanges: number
}

async function readSnapshot(file: string, document: StoreDocument): Promise<{ generation: number; createdAt: number }> {
  let header: { generation: number; createdAt: number } | undefined
  let records = 0
  let ended = false
  await eachLine(file, (line) => {
    if (!line.terminated) throw new StoreDamagedError(file, line.number, 'its last line is cut short: an incomplete snapshot')
    const decoded = decodeLine(line.buffer, line.start, line.end)
    if (line.number === 1) {
      const found = headerOf(decoded, 'mcp-auth-snapshot')
      if (typeof found === 'string') throw new StoreDamagedError(file, 1, found)
      header = found
      return
    }
    if (typeof decoded === 'string') throw new StoreDamagedError(file, line.number, decoded)
    if (ended) throw new StoreDamagedError(file, line.number, 'a line after the end line')
    if (decoded[0] === 'e') {
      if (decoded[1] !== records) throw new StoreDamagedError(file, line.number, `the end line counts ${decoded[1]} records, the snapshot holds ${records}`)
      ended = true
    } else if (decoded[0] === 'm' || decoded[0] === 'r') {
      applyLine(document, decoded)
      records += 1
    } else {
      throw new StoreDamagedError(file, line.number, `a "${decoded[0]}" line does not belong in a snapshot`)
    }
  })
  if (header === undefined) throw new StoreDamagedError(file, undefined, 'it is empty')
  if (!ended) throw new StoreDamagedError(file, undefined, 'it ends before its end line: an incomplete snapshot')
  return header
}

interface JournalRead {
  bytes: number
  changes: number
  sweptAt: number
  tornTail?: TornTail
}

/**
 * Replays one journal. Lines come in batches closed by a commit line; a batch is applied only
 * whole. After the last commit, a batch without its commit (or lines that are cut short or do not
 * check) is a write a crash interrupted, never acknowledged: a torn tail, allowed in the newest
 * journal only. A bad line followed by a good commit is damage.
 */
async function replayJournal(file: string, generation: number, newest: boolean, document: StoreDocument): Promise<JournalRead> {
  let batch: StoreLine[] = []
  let committedEnd = 0
  let committedLines = 0
  let firstBad: { line: number; reason: string } | undefined
  let lastLine = 0
  let size = 0
  let changes = 0
  let sweptAt = 0
  await eachLine(file, (line) => {
    lastLine = line.number
    size = line.next
    const decoded = line.terminated ? decodeLine(line.buffer, line.start, line.end) : 'cut short'
    if (line.number === 1) {
      const header = headerOf(decoded, 'mcp-auth-journal')
      if (typeof header === 'string') throw new StoreDamagedError(file, 1, header)
      if (header.generation !== generation) throw new StoreDamagedError(file, 1, `its header says generation ${header.generation}`)
      committedEnd = line.next
      committedLines = 1
      return
    }
    if (typeof decoded === 'string') {
      firstBad ??= { line: line.number, reason: decoded }
      return
    }
    if (decoded[0] === 'c') {
      if (firstBad !== undefined) throw new StoreDamagedError(file, firstBad.line, firstBad.reason)
      if (decoded[1] !== batch.length) throw new StoreDamagedError(file, line.number, `the commit line counts ${decoded[1]} changes, its batch has ${batch.length}`)
      for (const change of batch) {
        const at = applyLine(document, change)
        if (at !== undefined && at > sweptAt) sweptAt = at
      }
      changes += batch.length
      batch = []
      committedEnd = line.next
      committedLines = line.number
    } else if (decoded[0] === 'h' || decoded[0] === 'e') {
      firstBad ??= { line: line.number, reason: `a "${decoded[0]}" line does not belong in a journal's body` }
    } else {
      batch.push(decoded)
    }
  })
  if (lastLine === 0) throw new StoreDamagedError(file, undefined, 'it is empty (no header)')
  if (batch.length === 0 && firstBad === undefined) return { bytes: size, changes, sweptAt }
  if (!newest) throw new StoreDamagedError(file, firstBad?.line ?? committedLines + 1, firstBad?.reason ?? 'a batch without its commit line in a journal that is not the newest')
  return {
    bytes: committedEnd,
    changes,
    sweptAt,
    tornTail: { file, line: committedLines + 1, lines: lastLine - committedLines, bytes: size - committedEnd, cutAt: committedEnd },
  }
}

/**
 * Reads a format-2 store: its snapshot, then every journal from the snapshot's generation on, in
 * order, into a document; records expired by now (or by the last sweep) are dropped. Changes
 * nothing on disk. Throws {@link StoreDamagedError} for damage anywhere but the newest journal's
 * unfinished last batch, which it reports as {@link LoadedStore.tornTail} for the caller to cut.
 */
export async function loadStore(layout: StoreLayout, now: number): Promise<LoadedStore> {
  const document = emptyDocument()
  const snapshotBytes = await stat(layout.snapshot).then(
    (info) => info.size,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new StoreDamagedError(layout.snapshot, undefined, `it is missing, though ${layout.marker} says the store is in format 2`)
      throw error
    },
  )
  const { generation: from, createdAt } = await readSnapshot(layout.snapshot, document)
  const generations = await journalGenerations(layout)
  const staleGenerations = generations.filter((generation) => generation < from)
  const current = generations.filter((generation) => generation >= from)
  current.forEach((generation, index) => {
    if (generation !== from + index) {
      const missing = from + index
      throw new StoreDamagedError(layout.journal(missing), undefined, 'it is missing, and the snapshot continues with it')
    }
  })
  if (current.length === 0) throw new StoreDamagedError(layout.journal(from), undefined, 'it is missing, and the snapshot continues with it')
  let journalBytes = 0
  let journalChanges = 0
  let sweptAt = 0
  let tornTail: TornTail | undefined
  let newestJournalSize = 0
  for (const [index, generation] of current.entries()) {
    const newest = index === current.length - 1
    const read = await replayJournal(layout.journal(generation), generation, newest, document)
    journalBytes += read.bytes
    journalChanges += read.changes
    sweptAt = Math.max(sweptAt, read.sweptAt)
    if (newest) {
      newestJournalSize = read.bytes
      tornTail = read.tornTail
    }
  }
  dropExpired(document, Math.max(now, sweptAt))
  return {
    document,
    snapshotGeneration: from,
    generation: current.at(-1) as number,
    snapshotBytes,
    journalBytes,
    newestJournalSize,
    ...(tornTail !== undefined ? { tornTail } : {}),
    staleGenerations,
    snapshotCreatedAt: createdAt,
    journalChanges,
  }
}
