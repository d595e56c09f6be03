import { writePrivateFileFrom } from '../private-file.js'
import { encodeLine, modelLine } from './record-line.js'
import type { StoreDocument } from './store-document.js'

/** Options of {@link writeSnapshot}. */
export interface SnapshotWriteOptions {
  /** The journal generation the snapshot continues with. */
  generation: number
  /** Records expired at this epoch ms are left out. */
  now: number
  /** Bytes serialized between two yields to the event loop. */
  chunkBytes: number
  /** Asked between chunks: true abandons the snapshot (the store is closing). */
  stop?: () => boolean
}

/** What a written snapshot holds. */
export interface SnapshotWritten {
  records: number
  bytes: number
}

/** Thrown by {@link writeSnapshot} when `stop` asked it to give up. */
export class SnapshotAbandoned extends Error {
  override name = 'SnapshotAbandoned'
}

function* recordLines(document: StoreDocument, now: number): Generator<string> {
  for (const [model, table] of document.models) {
    for (const [id, entry] of table) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) continue
      yield modelLine(model, id, entry.json, entry.expiresAt, entry)
    }
  }
  for (const [collection, table] of document.records) {
    for (const [id, value] of table) yield encodeLine(`["r",${JSON.stringify(collection)},${JSON.stringify(id)},${JSON.stringify(value)}]`)
  }
}

/**
 * Writes `document` as the store's snapshot at `file`: a header, one line per live record, an end
 * line with the count, placed as every private file is (a 0600 temp file beside it, fsynced and
 * renamed over, the directory fsynced: a crash leaves the old snapshot or the new one). Serialized a
 * chunk at a time with the event loop free between chunks, while writes go on: the document's Maps
 * are walked live, and what changes meanwhile is in the journal the snapshot names, replayed over it.
 */
export async function writeSnapshot(file: string, document: StoreDocument, options: SnapshotWriteOptions): Promise<SnapshotWritten> {
  const written: SnapshotWritten = { records: 0, bytes: 0 }
  async function* chunks(): AsyncGenerator<Buffer> {
    let chunk: string[] = [encodeLine(JSON.stringify(['h', { format: 'mcp-auth-snapshot', version: 2, generation: options.generation, createdAt: options.now }]))]
    let size = 0
    const take = (): Buffer => {
      const body = Buffer.from(chunk.join(''), 'utf8')
      chunk = []
      size = 0
      written.bytes += body.length
      return body
    }
    for (const line of recordLines(document, options.now)) {
      chunk.push(line)
      written.records += 1
      size += line.length
      if (size >= options.chunkBytes) {
        yield take()
        if (options.stop?.() === true) throw new SnapshotAbandoned('the store closed while its snapshot was written')
      }
    }
    chunk.push(encodeLine(`["e",${written.records}]`))
    yield take()
  }
  await writePrivateFileFrom(file, chunks())
  return written
}
