import { createHash, randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { JsonRpcMessage, JsonRpcPayload, RequestId } from '../../../jsonrpc/index.js'
import type { MessageExtra, SendOptions, Transport } from '../../../protocol/transport.js'
import { SseWriter } from '../../http/sse-writer.js'
import type { EventStore } from './event-store.js'
import { OutboundStream } from './outbound-stream.js'

export interface SessionTransportOptions {
  sessionId: string | undefined
  eventStore: EventStore | undefined
  keepAliveMs: number
  retryMs: number
  preferJsonResponse: boolean
}

/** Sessions of this revision and later get SSE streams primed with a resumable empty event (SEP-1699). */
const PRIMED_FROM = '2025-11-25'

/** The suffix of the standalone GET stream's id within a session (`<session tag>.g`). */
export const STANDALONE_STREAM_ID = 'g'

/**
 * The Transport one server session sees over Streamable HTTP. Inbound messages come from the
 * handler (one POST at a time); each outbound message goes on exactly one stream: the POST
 * that carried the request it belongs to, else the standalone GET stream, else nowhere.
 */
export class SessionTransport implements Transport {
  readonly sessionId: string | undefined
  readonly #options: SessionTransportOptions
  readonly #streams = new Map<string, OutboundStream>()
  /** Only while requests are owed a response: an idle session (thousands of them) holds no table. */
  #byRequest: Map<RequestId, OutboundStream> | undefined
  /**
   * Every stream id of this session starts with it, so a Last-Event-ID of another session never
   * names a stream here. Derived from the session id (the same in every process that serves the
   * session); then a random part per process and a counter, so ids stay unique across processes too.
   */
  readonly #tag: string
  /** Random per process serving the session: stream ids stay unique if another process takes over. */
  readonly #instance: string
  readonly #standaloneId: string
  #nextStream = 1
  #closed = false
  /** Set from the negotiated version (initialize, or a restored session). */
  #prime = false

  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void

  constructor(options: SessionTransportOptions) {
    this.sessionId = options.sessionId
    this.#options = options
    this.#tag = options.sessionId === undefined ? '' : `${createHash('sha256').update(options.sessionId).digest('hex').slice(0, 8)}.`
    this.#standaloneId = `${this.#tag}${STANDALONE_STREAM_ID}`
    this.#instance = options.sessionId === undefined ? '' : randomBytes(4).toString('hex')
  }

  /** Whether `streamId` is one of this session's streams (live, finished, or primed only). */
  ownsStream(streamId: string): boolean {
    return this.#tag !== '' && streamId.startsWith(this.#tag)
  }

  async start(): Promise<void> {}

  /** The session's negotiated version: 2025-11-25 and later prime their SSE streams. */
  setProtocolVersion(version: string): void {
    this.#prime = version >= PRIMED_FROM
  }

  async send(payload: JsonRpcPayload, options?: SendOptions): Promise<void> {
    if (Array.isArray(payload)) {
      await Promise.all(payload.map((message) => this.#route(message, options?.relatedRequestId)))
    } else {
      await this.#route(payload, options?.relatedRequestId)
    }
  }

  /** A POST carrying requests: its response becomes the stream that owes their responses. */
  openExchange(res: ServerResponse, requestIds: readonly RequestId[], batch: boolean, headers: Record<string, string>): OutboundStream {
    const streamId = this.sessionId === undefined ? String(this.#nextStream++) : `${this.#tag}${this.#instance}${this.#nextStream++}`
    const stream = new OutboundStream(res, requestIds, this.#streamOptions(streamId, headers, batch, this.#options.preferJsonResponse, false))
    this.#streams.set(streamId, stream)
    const byRequest = (this.#byRequest ??= new Map())
    for (const id of requestIds) byRequest.set(id, stream)
    stream.onfinished = () => {
      this.#streams.delete(streamId)
      const owed = this.#byRequest
      if (owed === undefined) return
      for (const id of requestIds) if (owed.get(id) === stream) owed.delete(id)
      if (owed.size === 0) this.#byRequest = undefined
    }
    return stream
  }

  /** Whether the standalone GET stream is open. */
  get hasStandaloneStream(): boolean {
    return this.#streams.get(this.#standaloneId)?.connected ?? false
  }

  /** Whether the session is in use: a request still owes its response, or the GET stream is open. */
  get busy(): boolean {
    for (const stream of this.#streams.values()) {
      if (stream.streamId === this.#standaloneId ? stream.connected : !stream.finished) return true
    }
    return false
  }

  /**
   * The client cancelled one of its requests: it gets no response (MCP cancellation), so the
   * stream that owed it must not wait for one.
   */
  cancelled(requestId: RequestId): void {
    void this.#byRequest?.get(requestId)?.release(requestId)
  }

  /** GET without Last-Event-ID: the stream for messages not tied to a request. */
  openStandalone(res: ServerResponse): void {
    const existing = this.#streams.get(this.#standaloneId)
    if (existing !== undefined) {
      existing.attach(res, [])
      return
    }
    const stream = new OutboundStream(res, [], this.#streamOptions(this.#standaloneId, {}, false, false, true))
    this.#streams.set(this.#standaloneId, stream)
  }

  /** GET with Last-Event-ID: replay what `streamId` missed, then carry it on `res` if it is still open. */
  resume(res: ServerResponse, streamId: string, missed: ReadonlyArray<{ id: string; message: JsonRpcMessage }>): void {
    const live = this.#streams.get(streamId)
    if (live !== undefined && !live.finished) {
      live.attach(res, missed)
      return
    }
    // the stream already delivered everything it owed: replay and end
    const writer = new SseWriter(res, { keepAliveMs: 0 })
    for (const { id, message } of missed) writer.event(JSON.stringify(message), id)
    writer.end()
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const stream of this.#streams.values()) stream.close()
    this.#streams.clear()
    this.#byRequest = undefined
    this.onclose?.()
  }

  #route(message: JsonRpcMessage, relatedRequestId: RequestId | undefined): Promise<void> {
    const isResponse = 'result' in message || 'error' in message
    const key = isResponse ? (message as { id: RequestId | null }).id : relatedRequestId
    const stream = key === undefined || key === null ? undefined : this.#byRequest?.get(key)
    if (stream !== undefined && !stream.finished) return stream.write(message)
    // not tied to a live request: the standalone stream, when the client opened one
    const standalone = this.#streams.get(this.#standaloneId)
    if (standalone !== undefined && !isResponse) return standalone.write(message)
    return Promise.resolve()
  }

  /** One literal of one shape for every stream (built per request: no spreads on this path). */
  #streamOptions(streamId: string, headers: Record<string, string>, batch: boolean, preferJson: boolean, standalone: boolean) {
    return {
      streamId,
      sessionId: this.#options.sessionId,
      eventStore: this.#options.eventStore,
      keepAliveMs: this.#options.keepAliveMs,
      retryMs: this.#options.retryMs,
      prime: this.#prime,
      headers,
      standalone,
      batch,
      preferJson,
    }
  }
}
