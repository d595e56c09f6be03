import type { FileHandle } from 'node:fs/promises'

const NEWLINE = 0x0a

/** A whole line of an audit file and the offset of its first byte (a page's cursor). */
export interface AuditFileLine {
  line: string
  start: number
}

/**
 * The lines of `file` that end before `end`, last first, read `chunkBytes` at a time from the end:
 * a query that stops early (its limit, its `since`) reads only the tail of the file. A last line
 * without its newline (a write under way) is handed out too; its reader skips what does not parse.
 */
export async function* auditFileLinesBackwards(file: FileHandle, end: number, chunkBytes: number): AsyncGenerator<AuditFileLine> {
  let position = end
  let tail = Buffer.alloc(0)
  while (position > 0) {
    const size = Math.min(chunkBytes, position)
    position -= size
    const chunk = Buffer.allocUnsafe(size)
    const { bytesRead } = await file.read(chunk, 0, size, position)
    const data = tail.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([chunk.subarray(0, bytesRead), tail])
    let lineEnd = data.length
    for (let i = data.lastIndexOf(NEWLINE, lineEnd - 1); i >= 0; i = lineEnd > 0 ? data.lastIndexOf(NEWLINE, lineEnd - 1) : -1) {
      if (i + 1 < lineEnd) yield { line: data.toString('utf8', i + 1, lineEnd), start: position + i + 1 }
      lineEnd = i
    }
    tail = Buffer.from(data.subarray(0, lineEnd))
  }
  if (tail.length > 0) yield { line: tail.toString('utf8'), start: 0 }
}

/**
 * Reads what `file` holds from `from` on, `chunkBytes` at a time, and hands each whole line to
 * `onLine`; returns the offset after the last whole line (where the next read starts), so a line
 * still being written is read whole on the next call.
 */
export async function readAuditFileLinesFrom(file: FileHandle, from: number, chunkBytes: number, onLine: (line: string) => void): Promise<number> {
  let position = from
  let pending = Buffer.alloc(0)
  for (;;) {
    const chunk = Buffer.allocUnsafe(chunkBytes)
    const { bytesRead } = await file.read(chunk, 0, chunkBytes, position + pending.length)
    if (bytesRead === 0) return position
    const data = pending.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([pending, chunk.subarray(0, bytesRead)])
    let lineStart = 0
    for (let i = data.indexOf(NEWLINE); i >= 0; i = data.indexOf(NEWLINE, lineStart)) {
      if (i > lineStart) onLine(data.toString('utf8', lineStart, i))
      lineStart = i + 1
    }
    position += lineStart
    pending = Buffer.from(data.subarray(lineStart))
  }
}
