import { closeFd, dataSyncFd, truncateFd, writeAllFd } from '../fd.js'
import { encodeLine } from './record-line.js'

interface Waiter {
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * Appends change lines to the open journal, group-committed: the lines of every write made while
 * a batch is on its way to the disk go out together as the next batch, closed by a commit line
 * (`["c", n]`) and made durable with one fdatasync; each write's promise resolves only then. A
 * batch that fails is cut off the file again (truncated to the last durable batch) and its lines
 * go out with the next batch: memory already holds them, and the file must not lose them.
 */
export class JournalWriter {
  #fd: number
  /** Bytes of the open journal that are durable (the end of its last committed batch). */
  #durable: number
  #lines: string[] = []
  #count = 0
  #waiters: Waiter[] = []
  #draining: Promise<void> | undefined
  #closed = false
  #failure: unknown
  #closeAfter: Array<{ fd: number; drained: Promise<void> }> = []

  constructor(fd: number, size: number) {
    this.#fd = fd
    this.#durable = size
  }

  /** Bytes of the open journal written durably. */
  get size(): number {
    return this.#durable
  }

  /** The last write error, until a batch succeeds again. */
  get failure(): unknown {
    return this.#failure
  }

  /** Queues change lines (already encoded, see encodeLine); resolves once they are durable. */
  append(lines: string, count = 1): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the store is closed'))
    this.#lines.push(lines)
    this.#count += count
    return this.#wait()
  }

  /** Resolves once everything appended so far is durable (a write that changed nothing waits for what it observed). */
  flushed(): Promise<void> {
    if (this.#lines.length === 0 && this.#draining === undefined && this.#failure === undefined) return Promise.resolve()
    return this.#wait()
  }

  #wait(): Promise<void> {
    const promise = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }))
    this.#draining ??= this.#drain()
    return promise
  }

  /**
   * Continues on `fd` (a new journal, its header durable, `size` bytes long): lines not yet on
   * their way go there. The batch in flight finishes on the old file, which is then closed.
   */
  switchTo(fd: number, size: number): void {
    const old = this.#fd
    this.#fd = fd
    this.#durable = size
    this.#closeAfter.push({ fd: old, drained: this.#draining ?? Promise.resolve() })
    void this.#closeOld()
  }

  async #closeOld(): Promise<void> {
    for (let next = this.#closeAfter.shift(); next !== undefined; next = this.#closeAfter.shift()) {
      await next.drained.catch(() => undefined)
      await closeFd(next.fd).catch(() => undefined)
    }
  }

  async #drain(): Promise<void> {
    // let the writes of this turn of the event loop join the batch
    await Promise.resolve()
    while (this.#waiters.length > 0) {
      const lines = this.#lines
      const count = this.#count
      const waiters = this.#waiters
      this.#lines = []
      this.#count = 0
      this.#waiters = []
      const fd = this.#fd
      const start = this.#durable
      try {
        if (lines.length > 0) {
          lines.push(encodeLine(`["c",${count}]`))
          const body = Buffer.from(lines.join(''), 'utf8')
          await writeAllFd(fd, body)
          await dataSyncFd(fd)
          if (fd === this.#fd) this.#durable = start + body.length
        } else if (this.#failure !== undefined) {
          throw this.#failure
        }
        this.#failure = undefined
        for (const waiter of waiters) waiter.resolve()
      } catch (error) {
        this.#failure = error
        // the batch may be partly on disk: cut it off, and send its lines again with the next one
        // (also on a journal switched away from: only the newest journal may end unfinished)
        await truncateFd(fd, start).catch(() => undefined)
        lines.pop()
        this.#lines = [...lines, ...this.#lines]
        this.#count += count
        for (const waiter of waiters) waiter.reject(error)
      }
    }
    this.#draining = undefined
  }

  /** Waits for what was appended, then closes the journal. */
  async close(): Promise<void> {
    if (this.#closed) return
    await this.flushed().catch(() => undefined)
    this.#closed = true
    await this.#draining
    await this.#closeOld()
    await closeFd(this.#fd)
  }
}
