import type { Writable } from 'node:stream'
import type { JsonRpcPayload } from '../../jsonrpc/index.js'
import { serializeMessage } from './serialize-message.js'
import { StdioError } from './stdio-error.js'

/**
 * Writes messages as lines to a stream and honours its backpressure: when the stream's buffer
 * is full, every write waits for the same 'drain', so a fast sender cannot queue without bound.
 * Errors of the stream itself arrive on its 'error' event; the transport that owns it reports them.
 *
 * `coalesce`: the lines written in one turn of the event loop go out as one write (the stream is
 * corked until `setImmediate`). A pipe write costs a system call and wakes the reader; the
 * gateway, which forwards many callers' requests to one child, spent ~23% of its CPU in them
 * (one per request, CPU profile of bench:gateway's stateful run, issue 31).
 */
export class LineWriter {
  readonly #stream: Writable
  readonly #coalesce: boolean
  #corked = false
  #drained: Promise<void> | undefined

  constructor(stream: Writable, options: { coalesce?: boolean } = {}) {
    this.#stream = stream
    this.#coalesce = options.coalesce === true
  }

  write(payload: JsonRpcPayload): Promise<void> {
    const stream = this.#stream
    if (stream.destroyed || stream.writableEnded) return Promise.reject(new StdioError('not_connected', 'cannot send: the output stream is closed'))
    if (this.#coalesce && !this.#corked) {
      this.#corked = true
      stream.cork()
      setImmediate(() => {
        this.#corked = false
        stream.uncork()
      })
    }
    if (stream.write(serializeMessage(payload))) return this.#drained ?? Promise.resolve()
    this.#drained ??= new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        stream.off('drain', onDrain)
        stream.off('close', onClose)
        this.#drained = undefined
        if (error === undefined) resolve()
        else reject(error)
      }
      const onDrain = () => settle()
      const onClose = () => settle(new StdioError('not_connected', 'the output stream closed before its buffer drained'))
      stream.on('drain', onDrain)
      stream.on('close', onClose)
    })
    return this.#drained
  }
}
