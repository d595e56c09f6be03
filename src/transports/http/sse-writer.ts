import type { ServerResponse } from 'node:http'

/**
 * Server-sent events on one HTTP response: the headers, `retry:`, events with ids, and keep-alive
 * comments while idle so proxies do not cut the stream.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
export class SseWriter {
  readonly #res: ServerResponse
  readonly #keepAlive: NodeJS.Timeout | undefined
  #closed = false
  onclose?: () => void

  #corked = false

  /**
   * `flush: true` sends the headers at once (a GET stream that may stay quiet); otherwise they go
   * with the first event. Writes made in one tick are coalesced into one socket write.
   */
  constructor(res: ServerResponse, options: { keepAliveMs: number; headers?: Record<string, string>; flush?: boolean }) {
    this.#res = res
    res.writeHead(200, {
      ...options.headers,
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    })
    if (options.flush === true) res.flushHeaders()
    if (options.keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => this.#write(': keep-alive\n\n'), options.keepAliveMs)
      this.#keepAlive.unref()
    }
    res.on('close', () => this.#finish())
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
    if (!this.#res.writableEnded) this.#res.end()
    this.#finish()
  }

  #write(text: string): void {
    const res = this.#res
    if (this.#closed || res.writableEnded) return
    if (!this.#corked) {
      this.#corked = true
      res.cork()
      process.nextTick(() => {
        this.#corked = false
        res.uncork()
      })
    }
    res.write(text)
  }

  #finish(): void {
    if (this.#closed) return
    this.#closed = true
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive)
    this.onclose?.()
  }
}
