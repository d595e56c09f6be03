import { fstatSync, mkdirSync, openSync, writev, writeSync } from 'node:fs'
import { dirname } from 'node:path'

/** Where a {@link LogSink} writes and how it batches. */
export interface LogSinkOptions {
  /** An open descriptor (2: stderr), or a file path opened for appending (0600, its directory made). */
  destination: number | string
  /** The size of a batch: lines are handed to the kernel once a batch is full (one system call per batch). */
  batchBytes: number
  /** …or this long after the first waiting line, whichever comes first. */
  flushMs: number
}

/** Sinks with lines waiting, written synchronously when the process exits (a crash's last lines included). */
const waiting = new Set<LogSink>()
let exitHooked = false

/**
 * The log's destination for JSON lines: each line is encoded at once into a batch buffer, and a
 * batch is written when full, after `flushMs` at the latest, and synchronously at exit: to a
 * regular file synchronously (one `write` into the page cache), to a pipe or terminal by one
 * asynchronous `writev` at a time (its reader may be slow; lines stay in order; a batch in flight
 * when the process ends by `process.exit` may be lost, as with any asynchronous write). Why not pino's
 * sonic-boom: measured on this machine (a 300-byte access line, the event loop turning as a
 * server's does), its `write` cost ~2.5 µs a line and this one ~0.2 µs; with an access line per
 * request that was a tenth of a protected MCP call (bench:protected --observe). And an
 * asynchronous write per batch, through libuv's thread pool on the server's own core, cost ~0.9 µs
 * a request more than a synchronous one.
 */
export class LogSink {
  readonly #fd: number
  readonly #batchBytes: number
  readonly #flushMs: number
  /** Full batches (and the unwritten rest of a short write, first) waiting for the write in flight. */
  #queue: Buffer[] = []
  #current: Buffer | undefined
  #offset = 0
  #writing = false
  #timer: NodeJS.Timeout | undefined
  /** A regular file is written synchronously (a batch into the page cache, ~20 µs); a pipe or terminal, whose reader may be slow, asynchronously. */
  readonly #sync: boolean

  constructor(options: LogSinkOptions) {
    const { destination } = options
    if (typeof destination === 'number') this.#fd = destination
    else {
      mkdirSync(dirname(destination), { recursive: true })
      this.#fd = openSync(destination, 'a', 0o600)
    }
    this.#sync = fstatSync(this.#fd).isFile()
    this.#batchBytes = options.batchBytes
    this.#flushMs = options.flushMs
    if (!exitHooked) {
      exitHooked = true
      process.once('exit', () => {
        for (const sink of waiting) sink.flushSync()
        waiting.clear()
      })
    }
  }

  /** Appends a line (pino calls it with each line, newline included). */
  write(line: string): boolean {
    if (this.#timer === undefined) {
      waiting.add(this)
      this.#timer = setTimeout(this.#onTimer, this.#flushMs)
      this.#timer.unref()
    }
    // at most 3 bytes per UTF-16 unit: a line that may not fit closes the batch first
    if (this.#current === undefined || this.#offset + line.length * 3 > this.#current.length) {
      this.#closeBatch()
      if (line.length * 3 > this.#batchBytes) {
        this.#queue.push(Buffer.from(line, 'utf8'))
        this.#writeQueued()
        return true
      }
      this.#current = Buffer.allocUnsafe(this.#batchBytes)
    }
    this.#offset += this.#current.write(line, this.#offset, 'utf8')
    if (this.#queue.length > 0) this.#writeQueued()
    return true
  }

  /** Hands every waiting line to the kernel now (asynchronously; after the write in flight, if any). */
  flush(): void {
    this.#closeBatch()
    this.#writeQueued()
  }

  /** Writes the full batches (a batch still filling waits for more lines or the timer). */
  #writeQueued(): void {
    if (this.#writing || this.#queue.length === 0) return
    if (this.#sync) {
      this.flushSync()
      return
    }
    const chunks = this.#queue
    this.#queue = []
    this.#writing = true
    writev(this.#fd, chunks, (error, written) => {
      this.#writing = false
      if (error !== null) {
        // a full pipe (stderr to a slow reader): the same bytes again shortly, nothing lost
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
          this.#queue.unshift(...chunks)
          setTimeout(() => this.#writeQueued(), 10).unref()
        }
        // anything else (the disk full, the descriptor closed): the batch is lost, the log has nowhere to say so
        return
      }
      const rest = unwritten(chunks, written)
      if (rest.length > 0) this.#queue.unshift(...rest)
      this.#writeQueued()
    })
  }

  /** Writes everything waiting before returning (at exit; a write in flight may land after it). */
  flushSync(): void {
    this.#closeBatch()
    for (const chunk of this.#queue) {
      let offset = 0
      while (offset < chunk.length) {
        try {
          offset += writeSync(this.#fd, chunk, offset, chunk.length - offset)
        } catch (error) {
          // the disk full, the descriptor closed: the rest is lost, the log has nowhere to say so
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') break
        }
      }
    }
    this.#queue = []
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined
    this.flush()
    // what came while a write was in flight waits for the next turn
    if (this.#queue.length > 0 || this.#offset > 0) {
      this.#timer = setTimeout(this.#onTimer, this.#flushMs)
      this.#timer.unref()
    } else waiting.delete(this)
  }

  /** Moves the lines of the current batch to the queue (the batch's buffer is not reused: a write may hold it). */
  #closeBatch(): void {
    if (this.#current === undefined || this.#offset === 0) return
    this.#queue.push(this.#current.subarray(0, this.#offset))
    this.#current = undefined
    this.#offset = 0
  }
}

/** What a `writev` of `chunks` that wrote `written` bytes left unwritten. */
function unwritten(chunks: Buffer[], written: number): Buffer[] {
  let skip = written
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i]!
    if (skip < chunk.length) return [chunk.subarray(skip), ...chunks.slice(i + 1)]
    skip -= chunk.length
  }
  return []
}
