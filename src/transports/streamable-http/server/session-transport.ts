import { hash, randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { JsonRpcMessage, JsonRpcPayload, RequestId } from '../../../jsonrpc/index.js'
import type { SendOptions, Transport, TransportSink } from '../../../protocol/transport.js'
import { SseWriter } from '../../http/sse-writer.js'
import type { EventStore } from './event-store.js'
import { OutboundStream, type StreamHost } from './outbound-stream.js'

/** What every session of one handler shares (one object per handler, not per session). */
export interface SessionTransportOptions {
  /** Undefined for the throwaway sessions of stateless mode: nothing stored, no resumption. */
  eventStore: EventStore | undefined
  keepAliveMs: number
  retryMs: number
  preferJsonResponse: boolean
  /** Called once, after the session's endpoint learnt of the close. */
  ended?: ((transport: SessionTransport) => void) | undefined
}

/** Sessions of this revision and later get SSE streams primed with a resumable empty event (SEP-1699). */
const PRIMED_FROM = '2025-11-25'

const NO_HEADERS: Record<string, string> = {}
/** Random per process (not per session: thousands of sessions need no random bytes of their own). */
const PROCESS_TAG = randomBytes(4).toString('hex')
let transportsMade = 0
const STANDALONE = { batch: false, preferJson: false, standalone: true }

/** The suffix of the standalone GET stream's id within a session (`<session tag>.g`). */
export const STANDALONE_STREAM_ID = 'g'

/**
 * The Transport one server session sees over Streamable HTTP. Inbound messages come from the
 * handler (one POST at a time); each outbound message goes on exactly one stream: the POST
 * that carried the request it belongs to, else the standalone GET stream, else nowhere.
 */
export class SessionTransport implements Transport, StreamHost {
  readonly sessionId: string | undefined
  readonly #options: SessionTransportOptions
  /** The POST exchanges of this session; made with the first (a session may hold only its GET stream). */
  #streams: Map<string, OutboundStream> | undefined
  /** The standalone GET stream, once the client opened it. */
  #standalone: OutboundStream | undefined
  /** Only while requests are owed a response: an idle session (thousands of them) holds no table. */
  #byRequest: Map<RequestId, OutboundStream> | undefined
  /**
   * Every stream id of this session starts with it, so a Last-Event-ID of another session never
   * names a stream here. Derived from the session id (the same in every process that serves the
   * session); then a random part per process and a counter, so ids stay unique across processes too.
   */
  readonly #tag: string
  /**
   * This process's random tag and a count of the transports it made: stream ids stay unique when
   * another process takes the session over, or this one restores it again.
   */
  readonly #instance: string
  #nextStream = 1
  #closed = false
  /** Set from the negotiated version (initialize, or a restored session). */
  #prime = false
  /** The endpoint's sink: this transport delivers to it only (no onmessage/onerror/onclose callbacks). */
  #sink: TransportSink | undefined

  constructor(sessionId: string | undefined, options: SessionTransportOptions) {
    this.sessionId = sessionId
    this.#options = options
    this.#tag = sessionId === undefined ? '' : `${hash('sha256', sessionId, 'hex').slice(0, 8)}.`
    this.#instance = sessionId === undefined ? '' : `${PROCESS_TAG}${(transportsMade++).toString(36)}-`
  }

  // StreamHost: what this session's streams read from it
  get eventStore(): EventStore | undefined {
    return this.#options.eventStore
  }
  get keepAliveMs(): number {
    return this.#options.keepAliveMs
  }
  get retryMs(): number {
    return this.#options.retryMs
  }
  get prime(): boolean {
    return this.#prime
  }

  attach(sink: TransportSink): void {
    this.#sink = sink
  }

  /** Whether `streamId` is one of this session's streams (live, finished, or primed only). */
  ownsStream(streamId: string): boolean {
    return this.#tag !== '' && streamId.startsWith(this.#tag)
  }

  async start(): Promise<void> {}

  get #standaloneId(): string {
    return `${this.#tag}${STANDALONE_STREAM_ID}`
  }

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
    const stream = new OutboundStream(res, requestIds, this, streamId, headers, { batch, preferJson: this.#options.preferJsonResponse, standalone: false })
    ;(this.#streams ??= new Map()).set(streamId, stream)
    const byRequest = (this.#byRequest ??= new Map())
    for (const id of requestIds) byRequest.set(id, stream)
    stream.onfinished = () => {
      // no table kept for a session whose requests are all answered (the usual idle session)
      const streams = this.#streams
      if (streams?.get(streamId) === stream) streams.delete(streamId)
      if (streams?.size === 0) this.#streams = undefined
      const owed = this.#byRequest
      if (owed === undefined) return
      for (const id of requestIds) if (owed.get(id) === stream) owed.delete(id)
      if (owed.size === 0) this.#byRequest = undefined
    }
    return stream
  }

  /** Whether the standalone GET stream is open. */
  get hasStandaloneStream(): boolean {
    return this.#standalone?.connected ?? false
  }

  /** Whether the session is in use: a request still owes its response, or the GET stream is open. */
  get busy(): boolean {
    if (this.hasStandaloneStream) return true
    for (const stream of this.#streams?.values() ?? []) if (!stream.finished) return true
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
    const existing = this.#standalone
    if (existing !== undefined) {
      existing.attach(res, [])
      return
    }
    this.#standalone = new OutboundStream(res, [], this, this.#standaloneId, NO_HEADERS, STANDALONE)
  }

  /** GET with Last-Event-ID: replay what `streamId` missed, then carry it on `res` if it is still open. */
  resume(res: ServerResponse, streamId: string, missed: ReadonlyArray<{ id: string; message: JsonRpcMessage }>): void {
    const live = streamId === this.#standaloneId ? this.#standalone : this.#streams?.get(streamId)
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
    for (const stream of this.#streams?.values() ?? []) stream.close()
    this.#streams = undefined
    this.#standalone?.close()
    this.#standalone = undefined
    this.#byRequest = undefined
    this.#sink?.closed()
    this.#options.ended?.(this)
  }

  #route(message: JsonRpcMessage, relatedRequestId: RequestId | undefined): Promise<void> {
    const isResponse = 'result' in message || 'error' in message
    const key = isResponse ? (message as { id: RequestId | null }).id : relatedRequestId
    const stream = key === undefined || key === null ? undefined : this.#byRequest?.get(key)
    if (stream !== undefined && !stream.finished) return stream.write(message)
    // not tied to a live request: the standalone stream, when the client opened one
    const standalone = this.#standalone
    if (standalone !== undefined && !isResponse) return standalone.write(message)
    return Promise.resolve()
  }
}
