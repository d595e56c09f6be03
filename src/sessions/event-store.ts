import { BoundedMap } from '../collections/bounded-map.js'
import { defaults } from '../config/defaults.js'
import type { JsonRpcMessage } from '../jsonrpc/index.js'

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
   * Keep one message (its JSON text) under a number the caller chose (`<streamId>_<seq>`), for a stream only the
   * caller writes (a POST's answer): the event can then go to the client at once, its storing not
   * waited for, nor its failure handled by the caller (the store handles it: the event is then
   * only not resumable). Optional: a store without it is asked to `append` and waited for.
   */
  keep?(sessionId: string, streamId: string, seq: number, json: string): Promise<void>
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
  readonly streamId: string
  next: number
  /** Ids are `<stream>_<seq>`, made again when replayed: an idle session keeps no id strings. */
  events: Array<{ seq: number; message: JsonRpcMessage }>
}

/**
 * A session's logs: none yet (null), its only stream's log held directly (most sessions store
 * one stream, the answer to initialize), or a table once it has several.
 */
type SessionLogs = null | StreamLog | Map<string, StreamLog>

/** The default EventStore: in memory, at most `maxEventsPerStream` per stream. */
export class InMemoryEventStore implements EventStore {
  readonly #sessions = new Map<string, SessionLogs>()
  readonly #max: number
  readonly #maxStreams: number

  constructor(options: { maxEventsPerStream?: number; maxStreamsPerSession?: number } = {}) {
    this.#max = options.maxEventsPerStream ?? defaults.streamableHttp.maxEventsPerStream
    // a table always keeps its newest stream, whatever the option says (0 included)
    this.#maxStreams = Math.max(1, options.maxStreamsPerSession ?? defaults.streamableHttp.maxStreamsPerSession)
  }

  /** Make a session known, so its streams' priming ids resume before any event is stored. */
  openSession(sessionId: string): void {
    if (!this.#sessions.has(sessionId)) this.#sessions.set(sessionId, null)
  }

  append(sessionId: string, streamId: string, message: JsonRpcMessage): string {
    const logs = this.#sessions.get(sessionId) ?? null
    const log = logOf(logs, streamId)
    if (log !== undefined) {
      const seq = log.next++
      log.events.push({ seq, message })
      if (log.events.length > this.#max) log.events.shift()
      return `${streamId}_${seq}`
    }
    // an array of one, not an empty one pushed to (which reserves room for 17): most streams
    // carry a single response
    const created: StreamLog = { streamId, next: 2, events: this.#max > 0 ? [{ seq: 1, message }] : [] }
    if (logs === null) {
      this.#sessions.set(sessionId, created)
    } else {
      // the oldest stream (the first set) is forgotten past the bound
      const table = logs instanceof Map ? logs : new BoundedMap<string, StreamLog>(this.#maxStreams).set(logs.streamId, logs)
      table.set(streamId, created)
      this.#sessions.set(sessionId, table)
    }
    return `${streamId}_1`
  }

  after(sessionId: string, lastEventId: string): StoredEvents | undefined {
    const streamId = streamOfEventId(lastEventId)
    if (streamId === undefined) return undefined
    const seq = Number(lastEventId.slice(streamId.length + 1))
    const logs = this.#sessions.get(sessionId)
    const log = logs === undefined ? undefined : logOf(logs, streamId)
    // `<stream>_0` is the priming id: valid before the stream has stored anything
    if (log === undefined) return seq === 0 && logs !== undefined ? { streamId, events: [] } : undefined
    if (seq >= log.next) return undefined
    return { streamId, events: log.events.filter((e) => e.seq > seq).map((e) => ({ id: `${streamId}_${e.seq}`, message: e.message })) }
  }

  dropSession(sessionId: string): void {
    this.#sessions.delete(sessionId)
  }
}

function logOf(logs: SessionLogs, streamId: string): StreamLog | undefined {
  if (logs === null) return undefined
  if (logs instanceof Map) return logs.get(streamId)
  return logs.streamId === streamId ? logs : undefined
}
