import { defaults } from '../../../config/defaults.js'
import type { JsonRpcMessage } from '../../../jsonrpc/index.js'

/**
 * Where SSE events are kept so a client can resume a stream with Last-Event-ID. Every call is
 * scoped by session: an event id from one session can never replay another session's events.
 * Event ids encode their stream (`<streamId>_<n>`), so resumption replays that stream only.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
 */
export interface EventStore {
  /** Keep one message of a stream; returns its event id. */
  append(sessionId: string, streamId: string, message: JsonRpcMessage): Promise<string> | string
  /**
   * The events of the stream `lastEventId` belongs to that came after it, oldest first; undefined
   * when the id is unknown in this session (too old, forged, or another session's).
   */
  after(sessionId: string, lastEventId: string): Promise<StoredEvents | undefined> | StoredEvents | undefined
  /** Forget everything of a session (it ended). */
  dropSession(sessionId: string): Promise<void> | void
}

export interface StoredEvents {
  streamId: string
  events: Array<{ id: string; message: JsonRpcMessage }>
}

/** The stream an event id belongs to, or undefined for an id we did not make. */
export function streamOfEventId(eventId: string): string | undefined {
  const cut = eventId.lastIndexOf('_')
  return cut > 0 && /^\d+$/.test(eventId.slice(cut + 1)) ? eventId.slice(0, cut) : undefined
}

interface StreamLog {
  next: number
  events: Array<{ id: string; seq: number; message: JsonRpcMessage }>
}

const NO_STREAMS: ReadonlyMap<string, StreamLog> = new Map()

/** The default EventStore: in memory, at most `maxEventsPerStream` per stream. */
export class InMemoryEventStore implements EventStore {
  /** Per session, its streams' logs; NO_STREAMS until it stores one (idle sessions hold no table). */
  readonly #sessions = new Map<string, ReadonlyMap<string, StreamLog>>()
  readonly #max: number
  readonly #maxStreams: number

  constructor(options: { maxEventsPerStream?: number; maxStreamsPerSession?: number } = {}) {
    this.#max = options.maxEventsPerStream ?? defaults.streamableHttp.maxEventsPerStream
    this.#maxStreams = options.maxStreamsPerSession ?? defaults.streamableHttp.maxStreamsPerSession
  }

  /** Make a session known, so its streams' priming ids resume before any event is stored. */
  openSession(sessionId: string): void {
    if (!this.#sessions.has(sessionId)) this.#sessions.set(sessionId, NO_STREAMS)
  }

  append(sessionId: string, streamId: string, message: JsonRpcMessage): string {
    let streams = this.#sessions.get(sessionId) as Map<string, StreamLog> | undefined
    if (streams === undefined || streams === NO_STREAMS) this.#sessions.set(sessionId, (streams = new Map()))
    let log = streams.get(streamId)
    if (log === undefined) {
      streams.set(streamId, (log = { next: 1, events: [] }))
      // Map order is insertion order: the first key is the oldest stream
      if (streams.size > this.#maxStreams) streams.delete(streams.keys().next().value!)
    }
    const seq = log.next++
    const id = `${streamId}_${seq}`
    log.events.push({ id, seq, message })
    if (log.events.length > this.#max) log.events.shift()
    return id
  }

  after(sessionId: string, lastEventId: string): StoredEvents | undefined {
    const streamId = streamOfEventId(lastEventId)
    if (streamId === undefined) return undefined
    const seq = Number(lastEventId.slice(streamId.length + 1))
    const log = this.#sessions.get(sessionId)?.get(streamId)
    // `<stream>_0` is the priming id: valid before the stream has stored anything
    if (log === undefined) return seq === 0 && this.#sessions.has(sessionId) ? { streamId, events: [] } : undefined
    if (seq >= log.next) return undefined
    return { streamId, events: log.events.filter((e) => e.seq > seq).map(({ id, message }) => ({ id, message })) }
  }

  dropSession(sessionId: string): void {
    this.#sessions.delete(sessionId)
  }
}
