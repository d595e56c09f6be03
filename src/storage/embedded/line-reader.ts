import { closeFd, openFd, readFd } from '../fd.js'

/** One line of a file as {@link eachLine} hands it over (the same object, refilled for every line). */
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
 * Calls `visit` for each line of a file (or of its first `limit` bytes), read a chunk at a time:
 * never the whole file as one string (a store of 10^6 records is ~400 MB, near V8's string limit).
 * `visit` runs synchronously for every line of a chunk (no promise per line: a store's start reads
 * millions of them) and gets the same object, over the same buffer, each time: it must not keep
 * them. Returning false stops the reading. Given `fd`, reads it by position and leaves it open.
 */
export async function eachLine(
  file: string,
  visit: (line: FileLine) => boolean | undefined | void,
  options: { limit?: number; chunkBytes?: number; fd?: number } = {},
): Promise<void> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY
  const fd = options.fd ?? (await openFd(file, 'r'))
  let buffer = Buffer.allocUnsafe(options.chunkBytes ?? 1 << 20)
  const line: FileLine = { buffer, start: 0, end: 0, number: 0, next: 0, terminated: true }
  let kept = 0 // bytes at the start of buffer carried over from the last read (a line not yet ended)
  let offset = 0 // file offset of buffer[0]
  try {
    for (;;) {
      if (kept === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]) // a line longer than the buffer
      const want = Math.min(buffer.length - kept, limit - offset - kept)
      const { bytesRead } = want > 0 ? await readFd(fd, buffer, kept, want, offset + kept) : { bytesRead: 0 }
      const filled = kept + bytesRead
      if (bytesRead === 0) {
        if (kept > 0) {
          Object.assign(line, { buffer, start: 0, end: kept, number: line.number + 1, next: offset + kept, terminated: false })
          visit(line)
        }
        return
      }
      line.buffer = buffer
      let start = 0
      for (let at = buffer.indexOf(10, kept); at !== -1 && at < filled; at = buffer.indexOf(10, start)) {
        line.start = start
        line.end = at
        line.number += 1
        line.next = offset + at + 1
        if (visit(line) === false) return
        start = at + 1
      }
      buffer.copy(buffer, 0, start, filled)
      kept = filled - start
      offset += start
    }
  } finally {
    if (options.fd === undefined) await closeFd(fd)
  }
}
