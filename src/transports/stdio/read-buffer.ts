import { defaults } from '../../config/defaults.js'
import { StdioError } from './stdio-error.js'

/** One item the framing found: a complete line of text, or a line it had to refuse. */
export type ReadItem = { line: string } | { error: StdioError }

const NEWLINE = 0x0a
const CARRIAGE_RETURN = 0x0d

/**
 * Newline-delimited framing for the stdio transports: feed it chunks as they arrive, get back the
 * lines they complete. Lines are split on bytes and decoded whole, so a multi-byte character cut
 * across two chunks decodes correctly (0x0A never occurs inside a UTF-8 sequence). A trailing
 * `\r` is dropped, blank lines are skipped, and a line longer than `maxLineBytes` is reported
 * once and discarded up to its newline, so a peer that never sends one cannot grow our memory.
 *
 * @example
 * const buffer = new ReadBuffer()
 * buffer.append(Buffer.from('{"jsonrpc":"2.0",')) // []
 * buffer.append(Buffer.from('"method":"ping"}\n')) // [{ line: '{"jsonrpc":"2.0","method":"ping"}' }]
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio
 */
export class ReadBuffer {
  readonly #maxLineBytes: number
  readonly #decoder = new TextDecoder('utf-8', { fatal: true })
  #chunks: Uint8Array[] = []
  #length = 0
  /** Inside a line that went over the limit: drop bytes until its newline. */
  #discarding = false

  constructor(maxLineBytes: number = defaults.stdio.maxLineBytes) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) throw new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`)
    this.#maxLineBytes = maxLineBytes
  }

  /** Bytes held for a line whose newline has not arrived yet. */
  get pendingBytes(): number {
    return this.#length
  }

  /** Add one chunk; returns the lines (and refusals) it completed, in order. */
  append(chunk: Uint8Array): ReadItem[] {
    const items: ReadItem[] = []
    let start = 0
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.#take(chunk.subarray(start, end), items)
      this.#finishLine(items)
      start = end + 1
    }
    if (start < chunk.length) this.#take(chunk.subarray(start), items)
    return items
  }

  /** Forget any unfinished line. */
  clear(): void {
    this.#chunks = []
    this.#length = 0
    this.#discarding = false
  }

  #take(bytes: Uint8Array, items: ReadItem[]): void {
    if (this.#discarding || bytes.length === 0) return
    // one byte of slack for the '\r' of a CRLF line that is exactly at the limit
    if (this.#length + bytes.length > this.#maxLineBytes + 1) {
      items.push({ error: this.#tooLong() })
      this.clear()
      this.#discarding = true
      return
    }
    this.#chunks.push(bytes)
    this.#length += bytes.length
  }

  #finishLine(items: ReadItem[]): void {
    if (this.#discarding) {
      this.#discarding = false
      return
    }
    let bytes = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#length)
    this.#chunks = []
    this.#length = 0
    if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) bytes = bytes.subarray(0, -1)
    if (bytes.length > this.#maxLineBytes) {
      items.push({ error: this.#tooLong() })
      return
    }
    let line: string
    try {
      line = this.#decoder.decode(bytes)
    } catch (cause) {
      items.push({ error: new StdioError('invalid_utf8', 'a line is not valid UTF-8; it was discarded', { cause }) })
      return
    }
    if (line.trim() !== '') items.push({ line })
  }

  #tooLong(): StdioError {
    return new StdioError('line_too_long', `a line longer than ${this.#maxLineBytes} bytes arrived; it was discarded`)
  }
}
