import type { Readable, Writable } from 'node:stream'
import { ErrorCode, JsonRpcError, decodeJson, errorResponse, type JsonRpcPayload } from '../../jsonrpc/index.js'
import type { MessageExtra, Transport } from '../../protocol/transport.js'
import { LineWriter } from './line-writer.js'
import { ReadBuffer, type ReadItem } from './read-buffer.js'
import { StdioError } from './stdio-error.js'

export interface StdioServerTransportOptions {
  /** Where messages arrive. Default `process.stdin`. */
  stdin?: Readable
  /** Where messages go; nothing else is ever written to it. Default `process.stdout`. */
  stdout?: Writable
  /** Longest line accepted. Default `defaults.stdio.maxLineBytes`. */
  maxLineBytes?: number
}

/**
 * The server side of the stdio transport: reads newline-delimited JSON-RPC from stdin and writes
 * it to stdout, which carries nothing but MCP messages (log to stderr). A line that is not JSON is
 * answered with a -32700 error whose id is null; every JSON value is handed on unvalidated. The
 * end of stdin closes the transport.
 *
 * @example
 * const transport = new StdioServerTransport()
 * await server.connect(transport)
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio
 */
export class StdioServerTransport implements Transport {
  readonly #stdin: Readable
  readonly #stdout: Writable
  readonly #writer: LineWriter
  readonly #buffer: ReadBuffer
  #started = false
  #closed = false

  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void

  constructor(options: StdioServerTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin
    this.#stdout = options.stdout ?? process.stdout
    this.#writer = new LineWriter(this.#stdout)
    this.#buffer = new ReadBuffer(options.maxLineBytes)
  }

  async start(): Promise<void> {
    if (this.#started) throw new StdioError('invalid_state', 'this stdio transport is already started')
    this.#started = true
    this.#stdin.on('data', this.#onData)
    this.#stdin.on('error', this.#onError)
    this.#stdin.on('end', this.#onEnd)
    this.#stdin.on('close', this.#onEnd)
    this.#stdout.on('error', this.#onError)
  }

  async send(payload: JsonRpcPayload): Promise<void> {
    if (!this.#started || this.#closed) throw new StdioError('not_connected', 'cannot send: the stdio transport is not open')
    await this.#writer.write(payload)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#stdin.off('data', this.#onData)
    this.#stdin.off('error', this.#onError)
    this.#stdin.off('end', this.#onEnd)
    this.#stdin.off('close', this.#onEnd)
    this.#stdout.off('error', this.#onError)
    // nobody else reading: stop pulling so the process can exit
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause()
    this.#buffer.clear()
    this.onclose?.()
  }

  readonly #onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    for (const item of this.#buffer.append(bytes)) {
      if (this.#closed) return
      this.#handle(item)
    }
  }

  #handle(item: ReadItem): void {
    if ('error' in item) {
      if (item.error.code === 'invalid_utf8') this.#refuse(new JsonRpcError(ErrorCode.ParseError, 'Parse error: the message is not valid UTF-8', undefined, { cause: item.error }))
      else this.onerror?.(item.error)
      return
    }
    let value: unknown
    try {
      value = decodeJson(item.line)
    } catch (error) {
      this.#refuse(JsonRpcError.from(error))
      return
    }
    try {
      this.onmessage?.(value)
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
    }
  }

  /** Answer an unreadable line: JSON-RPC says the id is null when it could not be read. */
  #refuse(error: JsonRpcError): void {
    this.onerror?.(error)
    this.#writer.write(errorResponse(null, error)).catch((writeError: unknown) => this.#onError(writeError as Error))
  }

  readonly #onError = (error: Error) => {
    this.onerror?.(error)
  }

  readonly #onEnd = () => {
    void this.close()
  }
}
