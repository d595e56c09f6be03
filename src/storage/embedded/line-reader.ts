import { createReadStream } from 'node:fs'

/** One line of a file as {@link readLines} yields it. */
export interface FileLine {
  /** The chunk holding the line: its bytes are `buffer[start, end)` (newline excluded). */
  buffer: Buffer
  start: number
  end: number
  /** 1-based. */
  number: number
  /** Byte offset in the file just past this line (and its newline). */
  next: number
  /** False for a last line without a newline (a write cut short). */
  terminated: boolean
}

/**
 * The lines of a file (or of its first `limit` bytes), read as a stream of chunks: never the whole
 * file as one string (a store of 10^6 records is ~340 MB, near V8's string limit). A line longer
 * than a chunk is joined across chunks.
 */
export async function* readLines(file: string, options: { limit?: number; chunkBytes?: number; fd?: number } = {}): AsyncGenerator<FileLine> {
  const stream = createReadStream(file, {
    highWaterMark: options.chunkBytes ?? 1 << 20,
    ...(options.limit !== undefined ? { end: options.limit - 1 } : {}),
    ...(options.fd !== undefined ? { fd: options.fd, autoClose: false, start: 0 } : {}),
  })
  if (options.limit === 0) {
    stream.destroy()
    return
  }
  let carry: Buffer | undefined
  let offset = 0 // file offset of carry[0] (or of the chunk when there is no carry)
  let number = 0
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const buffer = carry === undefined ? chunk : Buffer.concat([carry, chunk])
    let start = 0
    for (let at = buffer.indexOf(10, carry?.length ?? 0); at !== -1; at = buffer.indexOf(10, start)) {
      number += 1
      yield { buffer, start, end: at, number, next: offset + at + 1, terminated: true }
      start = at + 1
    }
    offset += start
    carry = start < buffer.length ? buffer.subarray(start) : undefined
  }
  if (carry !== undefined && carry.length > 0) yield { buffer: carry, start: 0, end: carry.length, number: number + 1, next: offset + carry.length, terminated: false }
}
