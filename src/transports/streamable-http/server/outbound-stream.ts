import type { ServerResponse } from 'node:http'
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/index.js'
import { defaults } from '../../../config/defaults.js'
import type { HttpError } from '../../../net/http-error.js'
import { endSoon } from '../../http/end-soon.js'
import { sendHttpError } from '../../../net/send-http-error.js'
import { SseWriter } from '../../http/sse-writer.js'
import type { EventStore, StoredEvents } from '../../../sessions/event-store.js'

/** What the streams of one session share, read from the session's transport (no copy per stream). */
export interface StreamHost {
  /** Undefined in stateless mode: no session, nothing stored, no resumption. */
  readonly sessionId: string | undefined
  readonly eventStore: EventStore | undefined
  readonly keepAliveMs: number
  readonly retryMs: number
  /** Send a priming event (id + empty data) first: 2025-11-25 clients resume from it (SEP-1699). */
  readonly prime: boolean
}

export interface OutboundStreamFlags {
  /** The POST carried a batch: a JSON answer is an array. */
  batch: boolean
  preferJson: boolean
  /** The standalone GET stream: SSE from the start, owes no responses, never finishes by itself. */
  standalone: boolean
}

const RESOLVED: Promise<void> = Promise.resolve()
const NOOP = () => {}

const isResponse = (message: JsonRpcMessage): message is Extract<JsonRpcMessage, { id: unknown }> & ({ result: unknown } | { error: unknown }) =>
  'result' in message || 'error' in message

/**
 * One logical stream of a Streamable HTTP session: the answer to one POST (which owes the
 * responses of the requests in it), or the standalone GET stream. A POST's answer is JSON when
 * its responses are all there is to send and JSON is preferred; anything else first (progress,
 * a request to the client) turns it into SSE. Stored events let a client resume it after a drop,
 * on a new response (`attach`).
 */
export class OutboundStream {
  readonly streamId: string
  readonly #host: StreamHost
  /** Headers for the response that opens the stream (Mcp-Session-Id on initialize). */
  readonly #headers: Record<string, string>
  readonly #flags: OutboundStreamFlags
  /** Responses still owed; undefined for none (the GET stream: no table per idle session). */
  readonly #owed: Set<RequestId> | undefined
  /** Responses held for a JSON answer; made with the first. */
  #collected: JsonRpcMessage[] | undefined
  #res: ServerResponse | undefined
  #writer: SseWriter | undefined
  #mode: 'pending' | 'json' | 'sse'
  #tail: Promise<void> = RESOLVED
  /** Writes waiting in #tail; while any wait, new ones queue behind them to keep the order. */
  #queued = 0
  #finished = false
  /** Events stored while a stream made detached had no client yet: sent when one opens it. */
  #kept: Array<{ id: string; message: JsonRpcMessage }> | undefined
  /** The last event number this stream gave itself (a POST's stream, with a store that can `keep`). */
  #seq = 0
  /** Called once when a POST's stream has delivered every response it owed. */
  onfinished?: () => void

  /**
   * `host` and `flags` are shared (the session's transport, a constant): nothing copied per stream.
   * Without `res` the stream starts detached (a GET stream this process is taking over from
   * another): it stores what it is given, and keeps it until a client opens or resumes it.
   */
  constructor(res: ServerResponse | undefined, owed: readonly RequestId[], host: StreamHost, streamId: string, headers: Record<string, string>, flags: OutboundStreamFlags) {
    this.streamId = streamId
    this.#host = host
    this.#headers = headers
    this.#flags = flags
    this.#owed = owed.length === 0 ? undefined : new Set(owed)
    this.#res = res
    this.#mode = 'pending'
    if (res === undefined) this.#kept = []
    // SSE from the start unless JSON may still be the answer: the client gets the headers and
    // the priming event at once, so it can resume even if the connection drops before any message
    if (flags.standalone || !flags.preferJson) this.#startSse()
  }

  get finished(): boolean {
    return this.#finished
  }

  /** Made without a client and never opened since: it keeps what it is given for the first one. */
  get detached(): boolean {
    return this.#kept !== undefined && this.#res === undefined
  }

  /** Whether a client is currently connected to this stream. */
  get connected(): boolean {
    return this.#writer !== undefined && !this.#writer.closed
  }

  /** Queue a message; writes keep their order even when the event store is asynchronous. */
  write(message: JsonRpcMessage): Promise<void> {
    // nothing queued: write now, synchronously when the event store answers synchronously
    if (this.#queued === 0) {
      const pending = this.#write(message)
      if (pending === undefined) return RESOLVED
      return this.#enqueue(pending)
    }
    return this.#enqueue(this.#tail.then(() => this.#write(message)))
  }

  /**
   * Keep later writes behind `work`, so events keep their order with an asynchronous store. A
   * failed step fails its caller only: the writes after it still go.
   */
  #enqueue(work: Promise<void>): Promise<void> {
    this.#queued++
    const done = work.finally(() => {
      this.#queued--
    })
    this.#tail = done.then(NOOP, NOOP)
    return done
  }

  /**
   * A client resumed this stream on a new response (GET with Last-Event-ID): `load` reads what it
   * missed from the event store in the write queue, so no event is both replayed and written
   * live, nor neither. Rejects when `load` finds nothing for the id (nothing sent on `res` then).
   */
  resume(res: ServerResponse, load: () => Promise<StoredEvents | undefined> | StoredEvents | undefined, unknown: () => Error): Promise<void> {
    return this.#enqueue(
      this.#tail.then(async () => {
        const stored = await load()
        if (stored === undefined) throw unknown()
        // the store has what was kept, and more
        this.#kept = undefined
        this.attach(res, stored.events)
      }),
    )
  }

  /**
   * Keep every later write behind `work` (a shared store saving what this exchange changed, before
   * the client learns of it). When it fails, the stream ends with `failure` instead of its
   * responses: as the HTTP answer when none has started, else as an error response per request.
   */
  hold(work: Promise<void>, failure: (error: unknown, id: RequestId | null) => HttpError): void {
    void this.#enqueue(
      this.#tail
        .then(() => work)
        .then(undefined, (error: unknown) => {
          if (this.#finished) return
          const owed = [...(this.#owed ?? [])]
          const res = this.#res
          if (res !== undefined && !res.headersSent && !res.destroyed) sendHttpError(res, failure(error, owed.length === 1 ? owed[0]! : null))
          else if (this.connected) for (const id of owed) this.#writer!.event(failure(error, id).body())
          this.#finish()
        }),
    )
  }

  /** A client opened a stream made detached (GET): primed, then what came before it. */
  open(res: ServerResponse): void {
    const kept = this.#kept ?? []
    this.#kept = undefined
    this.attach(res, kept, this.#host.prime)
  }

  /** A client resumed this stream (GET with Last-Event-ID): replay what it missed, then go on here. */
  attach(res: ServerResponse, missed: ReadonlyArray<{ id: string; message: JsonRpcMessage }>, prime = false): void {
    this.#writer?.end()
    this.#res = res
    this.#writer = undefined
    this.#kept = undefined
    this.#startSse(prime, true)
    for (const { id, message } of missed) this.#writer!.event(JSON.stringify(message), id)
  }

  /**
   * A request of this POST was cancelled and will get no response: stop owing it, and end the
   * stream once nothing else is owed (with the responses collected so far, in JSON mode).
   */
  release(id: RequestId): Promise<void> {
    return this.#enqueue(
      this.#tail.then(() => {
        if (this.#finished || this.#owed?.delete(id) !== true || this.#owed.size > 0) return
        if (this.#mode === 'json') return this.#sendJson()
        if (this.#mode === 'pending') this.#startSse()
        this.#finish()
      }),
    )
  }

  /** End the stream (session closing). */
  close(): void {
    if (this.#mode === 'pending' || this.#mode === 'json') {
      const res = this.#res
      if (res !== undefined && !res.headersSent) {
        res.writeHead(204).end()
      }
    }
    this.#writer?.end()
    this.#finished = true
  }

  get #owedNone(): boolean {
    return this.#owed === undefined || this.#owed.size === 0
  }

  get #isStandalone(): boolean {
    return this.#flags.standalone
  }

  /** Returns a promise only when it had to wait for the event store. */
  #write(message: JsonRpcMessage): Promise<void> | undefined {
    if (this.#finished) return undefined
    if (isResponse(message)) this.#owed?.delete(message.id as RequestId)
    if (this.#mode === 'pending') {
      if (this.#flags.preferJson && isResponse(message)) this.#mode = 'json'
      else this.#startSse()
    }
    if (this.#mode === 'json') {
      if (isResponse(message)) {
        ;(this.#collected ??= []).push(message)
        if (this.#owedNone) this.#sendJson()
        return undefined
      }
      // something other than a response before the last one: switch to SSE, keep the order
      this.#startSse()
      const earlier = this.#collected ?? []
      this.#collected = undefined
      return (async () => {
        for (const collected of earlier) await this.#event(collected)
        await this.#event(message)
        this.#afterEvent()
      })()
    }
    const stored = this.#event(message)
    if (stored !== undefined) return stored.then(() => this.#afterEvent())
    this.#afterEvent()
    return undefined
  }

  #afterEvent(): void {
    if (this.#owedNone && !this.#isStandalone) this.#finish()
  }

  /** Store (when resumable) and send one event; a promise only for an asynchronous store. */
  #event(message: JsonRpcMessage): Promise<void> | undefined {
    const { eventStore, sessionId } = this.#host
    if (eventStore === undefined || sessionId === undefined) {
      if (this.connected) this.#writer!.event(JSON.stringify(message))
      return undefined
    }
    if (eventStore.keep !== undefined && !this.#isStandalone) {
      // this stream's only writer: the event goes now, stored beside it (a store that fails only
      // makes it not resumable, as below)
      const seq = ++this.#seq
      const json = JSON.stringify(message)
      void eventStore.keep(sessionId, this.streamId, seq, json)
      this.#send(message, `${this.streamId}_${seq}`, json)
      return undefined
    }
    const id = eventStore.append(sessionId, this.streamId, message)
    // a client that went away can resume from the store; nothing to write now
    if (typeof id === 'string') {
      this.#send(message, id)
      return undefined
    }
    return id.then(
      (stored) => this.#send(message, stored),
      // the store is unreachable: the client still gets the message, only not resumably
      () => {
        if (this.connected) this.#writer!.event(JSON.stringify(message))
      },
    )
  }

  /** `json`: the message's text when the caller already made it. */
  #send(message: JsonRpcMessage, id: string, json?: string): void {
    if (this.connected) this.#writer!.event(json ?? JSON.stringify(message), id)
    else if (this.#kept !== undefined) {
      // a client that never opens the stream cannot grow it without bound: the oldest go first
      if (this.#kept.length >= defaults.streamableHttp.maxKeptBeforeGet) this.#kept.shift()
      this.#kept.push({ id, message })
    }
  }

  #startSse(prime = this.#host.prime, flush = this.#isStandalone): void {
    this.#mode = 'sse'
    const res = this.#res
    if (res === undefined || res.writableEnded || res.destroyed) return
    // a GET stream may stay quiet: its headers go at once; a POST's go with its first event
    const host = this.#host
    this.#writer = new SseWriter(res, { keepAliveMs: host.keepAliveMs, headers: this.#headers, flush })
    if (host.sessionId !== undefined) this.#writer.retry(host.retryMs, prime ? `${this.streamId}_0` : undefined)
  }

  #sendJson(): void {
    const res = this.#res
    if (res !== undefined && !res.headersSent && !res.destroyed) {
      const collected = this.#collected ?? []
      const body = JSON.stringify(this.#flags.batch ? collected : collected[0])
      res.writeHead(200, { ...this.#headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
      endSoon(res, body)
    }
    // only now: whoever listens may close the session, which must not touch this answer
    this.#finish()
  }

  #finish(): void {
    if (this.#finished) return
    this.#finished = true
    this.#writer?.end()
    this.onfinished?.()
  }
}
