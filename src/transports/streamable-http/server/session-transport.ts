import { hash, randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { JsonRpcMessage, JsonRpcPayload, RequestId } from '../../../jsonrpc/index.js'
import { HttpError } from '../../../net/http-error.js'
import type { SendOptions, Transport, TransportSink } from '../../../protocol/transport.js'
import { isServerWide } from '../../../session-host/server-wide.js'
import { SseWriter } from '../../http/sse-writer.js'
import type { ClusterLink, HeldStream } from '../../../sessions/cluster-link.js'
import type { EventStore, StoredEvents } from '../../../sessions/event-store.js'
import { OutboundStream, type StreamHost } from './outbound-stream.js'
import { tagOutgoing, tagPrefix } from '../../../sessions/request-id-tags.js'

/** What every session of one handler shares (one object per handler, not per session). */
export interface SessionTransportOptions {
  /** Undefined for the throwaway sessions of stateless mode: nothing stored, no resumption. */
  eventStore: EventStore | undefined
  keepAliveMs: number
  retryMs: number
  preferJsonResponse: boolean
  /** Called once, after the session's endpoint learnt of the close. */
  ended?: ((transport: SessionTransport) => void) | undefined
  /**
   * Set when other processes serve the same sessions (a message bus): the ids of requests sent to
   * the client are tagged with this handler, and messages for a GET stream another process holds
   * travel there.
   */
  cluster?: ClusterLink | undefined
}

/** Sessions of this revision and later get SSE streams primed with a resumable empty event (SEP-1699). */
const PRIMED_FROM = '2025-11-25'

const NO_HEADERS: Record<string, string> = {}
/** Random per process (not per session: thousands of sessions need no random bytes of their own). */
const PROCESS_TAG = randomBytes(4).toString('hex')
let transportsMade = 0
const STANDALONE = { batch: false, preferJson: false, standalone: true }
const RESOLVED: Promise<void> = Promise.resolve()

const unknownLastEventId = () => new HttpError(400, 'Bad Request: unknown Last-Event-ID for this session')
const sessionGone = () => new HttpError(404, 'Not Found: unknown or ended session', { rpcCode: -32001 })

/** The suffix of the standalone GET stream's id within a session (`<session tag>.g`). */
export const STANDALONE_STREAM_ID = 'g'

/**
 * The Transport one server session sees over Streamable HTTP. Inbound messages come from the
 * handler (one POST at a time); each outbound message goes on exactly one stream: the POST
 * that carried the request it belongs to, else the standalone GET stream, else nowhere.
 */
export class SessionTransport implements Transport, StreamHost, HeldStream {
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
  /** With other processes: how the ids of our requests to the client start (see request-id-tags). */
  readonly tagPrefix: string | undefined
  /** With other processes, while this process holds the GET stream: stops listening for it. */
  #holding: Promise<() => Promise<void>> | undefined
  /**
   * A pinned session's requests another process forwarded here (id → that process): their answers,
   * and what is sent about them, go back over the cluster link to be written to its exchanges.
   */
  #remote: Map<RequestId, string> | undefined
  #settledWaiters: Array<() => void> | undefined
  /** Forwarded messages, in the order sent. */
  #forwarding: Promise<void> = RESOLVED

  constructor(sessionId: string | undefined, options: SessionTransportOptions) {
    this.sessionId = sessionId
    this.#options = options
    this.#tag = sessionId === undefined ? '' : `${hash('sha256', sessionId, 'hex').slice(0, 8)}.`
    const serial = sessionId === undefined ? 0 : transportsMade++
    this.#instance = sessionId === undefined ? '' : `${PROCESS_TAG}${serial.toString(36)}-`
    this.tagPrefix = options.cluster === undefined || sessionId === undefined ? undefined : tagPrefix(options.cluster.nodeId, serial)
  }

  /** HeldStream: this transport, among every process's (the process tag is random). */
  get holder(): string {
    return `${this.tagPrefix}${this.#instance}`
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
    const prefix = this.tagPrefix
    if (Array.isArray(payload)) {
      await Promise.all(payload.map((message) => this.#route(prefix === undefined ? message : tagOutgoing(message, prefix), options)))
    } else {
      await this.#route(prefix === undefined ? payload : tagOutgoing(payload, prefix), options)
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

  /** Requests of a pinned session that process `node` forwarded here: their answers go back there. */
  serveRemote(requestIds: readonly RequestId[], node: string): void {
    const remote = (this.#remote ??= new Map())
    for (const id of requestIds) remote.set(id, node)
  }

  /**
   * An answer the process that runs this (pinned) session sent for a request forwarded from here:
   * written to the exchange that owes it, as it was sent (its ids already tagged by that process).
   */
  deliver(message: JsonRpcMessage, relatedRequestId: RequestId | undefined): Promise<void> {
    return this.#route(message, relatedRequestId === undefined ? undefined : { relatedRequestId })
  }

  /** Whether the session is in use: a request still owes its response, or the GET stream is open. */
  get busy(): boolean {
    if (this.hasStandaloneStream || (this.#remote?.size ?? 0) > 0) return true
    for (const stream of this.#streams?.values() ?? []) if (!stream.finished) return true
    return false
  }

  /** Whether a request of the client is being handled here (its POST still owes the response). */
  owes(requestId: RequestId): boolean {
    return (this.#byRequest?.has(requestId) ?? false) || (this.#remote?.has(requestId) ?? false)
  }

  /**
   * The client cancelled one of its requests: it gets no response (MCP cancellation), so the
   * stream that owed it must not wait for one.
   */
  cancelled(requestId: RequestId): void {
    void this.#byRequest?.get(requestId)?.release(requestId)
    this.#dropRemote(requestId)
  }

  #dropRemote(requestId: RequestId): void {
    const remote = this.#remote
    if (remote === undefined || !remote.delete(requestId)) return
    if (remote.size > 0) return
    this.#remote = undefined
    this.#wakeSettled()
  }

  #wakeSettled(): void {
    const waiting = this.#settledWaiters
    this.#settledWaiters = undefined
    for (const wake of waiting ?? []) wake()
  }

  /** Resolves once no request forwarded here is owed an answer any more (a drain waits for it). */
  settled(): Promise<void> {
    if (this.#remote === undefined || this.#closed) return RESOLVED
    return new Promise((resolve) => (this.#settledWaiters ??= []).push(resolve))
  }

  /**
   * GET without Last-Event-ID: the stream for messages not tied to a request. With other
   * processes, this one holds it from now on (the previous holder gives it up).
   */
  async openStandalone(res: ServerResponse): Promise<void> {
    const existing = this.#standalone
    if (existing !== undefined) {
      // what came before the client opened it goes first
      if (existing.detached) existing.open(res)
      else existing.attach(res, [])
      return
    }
    if (this.#options.cluster === undefined) {
      this.#standalone = new OutboundStream(res, [], this, this.#standaloneId, NO_HEADERS, STANDALONE)
      return
    }
    // made first, detached: what comes once this process holds the stream is kept for `res`
    const standalone = await this.#takeOver()
    standalone.open(res)
  }

  /**
   * GET with Last-Event-ID for `streamId`: replay what it missed (`load` reads the event store),
   * then carry it on `res` if it is still open. The GET stream of a session whose holder was
   * another process (which may have died) is taken over. Rejects with 400 when `load` finds nothing.
   */
  async resume(res: ServerResponse, streamId: string, load: () => Promise<StoredEvents | undefined> | StoredEvents | undefined): Promise<void> {
    const standalone = streamId === this.#standaloneId
    if (standalone && this.#standalone === undefined && this.#options.cluster !== undefined) await this.#takeOver()
    const live = standalone ? this.#standalone : this.#streams?.get(streamId)
    if (live !== undefined && !live.finished) return live.resume(res, load, unknownLastEventId)
    const stored = await load()
    if (stored === undefined) throw unknownLastEventId()
    // the stream already delivered everything it owed (or is another process's): replay and end
    const writer = new SseWriter(res, { keepAliveMs: 0 })
    for (const { id, message } of stored.events) writer.event(JSON.stringify(message), id)
    writer.end()
  }

  /** Hold the GET stream here: a detached stream, then the announcement to the other processes. */
  async #takeOver(): Promise<OutboundStream> {
    if (this.#closed) throw sessionGone()
    const standalone = (this.#standalone = new OutboundStream(undefined, [], this, this.#standaloneId, NO_HEADERS, STANDALONE))
    try {
      await this.#hold()
    } catch (error) {
      if (this.#standalone === standalone) this.#standalone = undefined
      throw error
    }
    // closed, or the client opened it elsewhere meanwhile
    if (this.#closed || this.#standalone !== standalone) throw sessionGone()
    return standalone
  }

  /** HeldStream: another process sent a message for the GET stream this process holds. */
  deliverHeld(message: JsonRpcMessage): void {
    void this.#standalone?.write(message)
  }

  /** HeldStream: the client opened the GET stream elsewhere; this copy of it ends. */
  releaseHeld(): void {
    const standalone = this.#standalone
    this.#standalone = undefined
    standalone?.close()
    void this.#unhold()
  }

  #hold(): Promise<() => Promise<void>> {
    this.#holding ??= this.#options.cluster!.hold(this.sessionId!, this).catch((error: unknown) => {
      this.#holding = undefined
      throw error
    })
    return this.#holding
  }

  async #unhold(): Promise<void> {
    const holding = this.#holding
    this.#holding = undefined
    if (holding === undefined) return
    try {
      await (await holding)()
    } catch {
      // not holding after all, or the bus is down: nothing to stop
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const stream of this.#streams?.values() ?? []) stream.close()
    this.#streams = undefined
    this.#standalone?.close()
    this.#standalone = undefined
    this.#byRequest = undefined
    this.#remote = undefined
    this.#wakeSettled()
    void this.#unhold()
    this.#sink?.closed()
    this.#options.ended?.(this)
  }

  #route(message: JsonRpcMessage, options: SendOptions | undefined): Promise<void> {
    const isResponse = 'result' in message || 'error' in message
    const key = isResponse ? (message as { id: RequestId | null }).id : options?.relatedRequestId
    const node = key === undefined || key === null ? undefined : this.#remote?.get(key)
    if (node !== undefined) {
      if (isResponse) this.#dropRemote(key!)
      return this.#options.cluster!.sendAnswer(node, this.sessionId!, message, options?.relatedRequestId)
    }
    const stream = key === undefined || key === null ? undefined : this.#byRequest?.get(key)
    if (stream !== undefined && !stream.finished) return stream.write(message)
    // not tied to a live request: the standalone stream, when the client opened one
    const standalone = this.#standalone
    if (standalone !== undefined && !isResponse) return standalone.write(message)
    // a message of this session before the client opened its GET stream (a gateway's child asking
    // roots/list right after initialized) is kept for it, not dropped
    if (!isResponse && this.#options.cluster === undefined && !this.#closed && !isServerWide(options) && this.sessionId !== undefined) {
      this.#standalone = new OutboundStream(undefined, [], this, this.#standaloneId, NO_HEADERS, STANDALONE)
      return this.#standalone.write(message)
    }
    // with other processes: the one holding the GET stream sends it (server-wide notifications
    // each process sends itself, to the streams it holds)
    if (isResponse || this.#options.cluster === undefined || this.#closed || isServerWide(options)) return RESOLVED
    return this.#forward(message)
  }

  /**
   * To the process holding the session's GET stream, which stores and sends it. When none does
   * now (its process died, the client is reconnecting), stored here, for the client's resumption.
   */
  #forward(message: JsonRpcMessage): Promise<void> {
    const cluster = this.#options.cluster!
    const sessionId = this.sessionId!
    const sent = this.#forwarding.then(async () => {
      if (await cluster.forward(sessionId, message)) return
      await this.#options.eventStore?.append(sessionId, this.#standaloneId, message)
    })
    this.#forwarding = sent.catch(() => undefined)
    return sent
  }
}
