import type { ServerResponse } from 'node:http'
import { endSoon } from './end-soon.js'

/**
 * Server-sent events on one HTTP response: the headers, `retry:`, events with ids, and keep-alive
 * comments while idle so proxies do not cut the stream.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
export class SseWriter {
  readonly #res: ServerResponse
  readonly #keepAliveMs: number
  #closed = false
  onclose?: () => void

  #pending = ''
  /** The response head, until it is written: with the first flush, or with `end`. */
  #head: Record<string, string> | undefined

  /**
   * `flush: true` sends the headers at once (a GET stream that may stay quiet); otherwise they go
   * with the first write. Writes made in one tick go out as one socket write, and a stream that
   * ends in the tick it began (a POST answered at once) is sent whole with a Content-Length.
   */
  constructor(res: ServerResponse, options: { keepAliveMs: number; headers?: Record<string, string>; flush?: boolean }) {
    this.#res = res
    this.#head = {
      ...options.headers,
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    }
    if (options.flush === true) {
      this.#writeHead()
      res.flushHeaders()
    }
    this.#keepAliveMs = options.keepAliveMs
    if (options.keepAliveMs > 0) keepAliveGroup(options.keepAliveMs).add(this)
    res.on('close', () => this.#finish())
  }

  /** A comment line that keeps proxies from closing an idle stream. */
  keepAlive(): void {
    this.#write(': keep-alive\n\n')
  }

  get closed(): boolean {
    return this.#closed
  }

  /** Tell the client how long to wait before reconnecting, optionally with an id to resume from. */
  retry(ms: number, eventId?: string): void {
    this.#write(eventId === undefined ? `retry: ${ms}\n\n` : `id: ${eventId}\nretry: ${ms}\ndata: \n\n`)
  }

  /** One `message` event. `data` is JSON text, which never contains a raw newline. */
  event(data: string, id?: string, event = 'message'): void {
    this.#write(id === undefined ? `event: ${event}\ndata: ${data}\n\n` : `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`)
  }

  end(): void {
    if (!this.#res.writableEnded && !this.#res.destroyed) {
      const rest = this.#pending
      this.#pending = ''
      // nothing sent yet: the whole stream is `rest`, so it goes with its length, unchunked
      if (this.#head !== undefined) this.#writeHead(Buffer.byteLength(rest))
      endSoon(this.#res, rest === '' ? undefined : rest)
    }
    this.#finish()
  }

  #write(text: string): void {
    if (this.#closed || this.#res.writableEnded) return
    // coalesce what one tick writes into one socket write (our own buffer: corking an
    // OutgoingMessage across ticks loses data on Node 22)
    if (this.#pending === '') process.nextTick(SseWriter.#flushOne, this)
    this.#pending += text
  }

  // a static function given the writer, not an arrow per writer: thousands of idle streams
  // would each hold one
  static #flushOne(writer: SseWriter): void {
    writer.#flush()
  }

  #flush(): void {
    const text = this.#pending
    this.#pending = ''
    if (text === '' || this.#res.writableEnded || this.#res.destroyed) return
    if (this.#head !== undefined) this.#writeHead()
    this.#res.write(text)
  }

  #writeHead(contentLength?: number): void {
    const head = this.#head!
    this.#head = undefined
    if (contentLength !== undefined) head['Content-Length'] = String(contentLength)
    this.#res.writeHead(200, head)
  }

  #finish(): void {
    if (this.#closed) return
    this.#closed = true
    if (this.#keepAliveMs > 0) keepAliveGroup(this.#keepAliveMs).delete(this)
    this.onclose?.()
  }
}

/**
 * Open streams grouped by keep-alive interval, each group ticked by one timer: a stream per POST
 * must not cost a timer of its own. A stream's first comment comes within one interval.
 */
const keepAliveGroups = new Map<number, Set<SseWriter>>()

function keepAliveGroup(ms: number): Set<SseWriter> {
  let group = keepAliveGroups.get(ms)
  if (group === undefined) {
    const writers = new Set<SseWriter>()
    group = writers
    keepAliveGroups.set(ms, writers)
    setInterval(() => {
      for (const writer of writers) writer.keepAlive()
    }, ms).unref()
  }
  return group
}
