import { defaults } from '../config/defaults.js'
import type { JsonRpcMessage } from '../jsonrpc/index.js'
import type { RedisConnection } from './connection.js'
import { streamOfEventId, type EventStore, type StoredEvents } from '../sessions/event-store.js'
import { RedisScript } from './script.js'

export interface RedisEventStoreOptions {
  /** Events kept per stream (oldest dropped first); at least one. */
  maxEventsPerStream?: number
  /** Streams kept per session (the oldest forgotten first). */
  maxStreamsPerSession?: number
  /** Events of a stream that stored nothing for this long (ms) are gone; default: the session idle time. */
  ttlMs?: number
}

// One Redis stream per SSE stream (`mcp:events:<session>:<stream>`), its entries numbered `0-<n>`,
// and a sorted set of the session's streams by first use (`mcp:events:<session>`). For a stream
// several processes write in turn (a session's GET stream), `n` is the Redis server's clock in
// microseconds, or one past the stream's last entry when that is later: numbers grow within a
// stream and are never given twice, even after the stream expired, so an event id another process
// handed out never names a different event. A POST's stream has one writer and a name no other
// stream ever has: its writer numbers the events itself (`keep`) and does not wait for them.

/** Append one event; returns its number. */
const APPEND = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local n = now
if ARGV[7] ~= '' then
  -- the number its only writer chose (keep)
  n = tonumber(ARGV[7])
else
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if #last > 0 then
    local seq = tonumber(string.match(last[1][1], '%-(%d+)$'))
    if seq >= n then n = seq + 1 end
  end
end
local seq = string.format('%.0f', n)
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], '0-' .. seq, 'm', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if redis.call('ZADD', KEYS[2], 'NX', now, ARGV[5]) == 1 then
  local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
  if extra > 0 then
    local old = redis.call('ZPOPMIN', KEYS[2], extra)
    for i = 1, #old, 2 do redis.call('DEL', ARGV[6] .. old[i]) end
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return seq`)

/**
 * Keep several events under the numbers their writers chose, in one call: KEYS in pairs (stream,
 * session's streams), ARGV[1..3] the limits, then per event its JSON, stream id, stream key
 * prefix and number. What APPEND does for one numbered event, for each.
 */
const KEEP = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
for i = 1, #KEYS / 2 do
  local stream, streams, a = KEYS[2 * i - 1], KEYS[2 * i], 3 + 4 * (i - 1)
  redis.call('XADD', stream, 'MAXLEN', ARGV[1], '0-' .. ARGV[a + 4], 'm', ARGV[a + 1])
  redis.call('PEXPIRE', stream, ARGV[2])
  if redis.call('ZADD', streams, 'NX', now, ARGV[a + 2]) == 1 then
    local extra = redis.call('ZCARD', streams) - tonumber(ARGV[3])
    if extra > 0 then
      local old = redis.call('ZPOPMIN', streams, extra)
      for j = 1, #old, 2 do redis.call('DEL', ARGV[a + 3] .. old[j]) end
    end
  end
  redis.call('PEXPIRE', streams, ARGV[2])
end
return #KEYS / 2`)

/** The entries after ARGV[1]; false when the stream is unknown or the number is not one it gave. */
const AFTER = new RedisScript(`
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 0 then return false end
local lastSeq = tonumber(string.match(last[1][1], '%-(%d+)$'))
if tonumber(ARGV[1]) > lastSeq then return false end
return redis.call('XRANGE', KEYS[1], '(0-' .. ARGV[1], '+')`)

const DROP = new RedisScript(`
local streams = redis.call('ZRANGE', KEYS[1], 0, -1)
for i = 1, #streams do redis.call('DEL', ARGV[1] .. streams[i]) end
redis.call('DEL', KEYS[1])
return #streams`)

type Entry = [id: string, fields: string[]]

/** Events waiting to be kept in one call, and the promise their callers share. */
interface KeepBatch {
  keys: string[]
  args: Array<string | number>
  done: Promise<void>
  settle: (stored: Promise<unknown>) => void
}

const NOTHING = (): void => {}

/**
 * The event store of a deployment of several processes: SSE events in Redis streams, so a client
 * whose connection dropped may resume with `Last-Event-ID` on any process and get exactly what
 * its stream missed. Same rules as {@link InMemoryEventStore}: session-scoped, ids
 * `<streamId>_<n>`, the priming id `<streamId>_0` valid before anything was stored.
 *
 * @example
 * new StreamableHttpHandler(server, { allowedHosts, eventStore: new RedisEventStore(redis) })
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
 */
export class RedisEventStore implements EventStore {
  readonly #redis: RedisConnection
  readonly #max: number
  readonly #maxStreams: number
  readonly #ttlMs: number
  #batch: KeepBatch | undefined
  #inFlight: Promise<void> | undefined

  constructor(connection: RedisConnection, options: RedisEventStoreOptions = {}) {
    const d = defaults.streamableHttp
    this.#redis = connection
    this.#max = Math.max(1, options.maxEventsPerStream ?? d.maxEventsPerStream)
    this.#maxStreams = Math.max(1, options.maxStreamsPerSession ?? d.maxStreamsPerSession)
    this.#ttlMs = options.ttlMs ?? d.sessionIdleMs
  }

  async append(sessionId: string, streamId: string, message: JsonRpcMessage): Promise<string> {
    return `${streamId}_${await this.#append(sessionId, streamId, JSON.stringify(message), '')}`
  }

  /**
   * Group commit: one KEEP call in flight at a time; events kept while it runs wait and go
   * together in the next call (and those of one loop turn go together anyway). At low load an event
   * is stored after one loop turn; under load one call carries what arrived during the previous
   * round trip, so a busy process pays the per-call cost (a socket write, a reply to read, a script
   * run) once for many answers. Order within a stream is kept: calls never overlap. The promise is
   * the batch's, shared by its events, and its failure is already handled (a caller may ignore it:
   * a failed store only leaves those events not resumable).
   */
  keep(sessionId: string, streamId: string, seq: number, json: string): Promise<void> {
    let batch = this.#batch
    if (batch === undefined) {
      let settle!: (stored: Promise<unknown>) => void
      const done = new Promise<unknown>((resolve) => (settle = resolve)).then(NOTHING)
      done.catch(NOTHING)
      this.#batch = batch = { keys: [], args: [this.#max, this.#ttlMs, this.#maxStreams], done, settle }
      // after the I/O phase (the answers of every request read in this loop turn go together), and
      // not before the call in flight returned
      if (this.#inFlight === undefined) setImmediate(() => this.#flush())
    }
    const prefix = this.#streamPrefix(sessionId)
    batch.keys.push(prefix + streamId, this.#redis.key('mcp', 'events', sessionId))
    batch.args.push(json, streamId, prefix, String(seq))
    return batch.done
  }

  /** Resolves once every event kept so far is stored (or failed to be): before the connection closes. */
  async flushed(): Promise<void> {
    while (this.#inFlight !== undefined || this.#batch !== undefined) await (this.#inFlight ?? this.#batch!.done).catch(NOTHING)
  }

  #flush(): void {
    const batch = this.#batch
    if (batch === undefined || this.#inFlight !== undefined) return
    this.#batch = undefined
    const stored = KEEP.run(this.#redis, batch.keys, batch.args)
    batch.settle(stored)
    this.#inFlight = stored.then(NOTHING, NOTHING).finally(() => {
      this.#inFlight = undefined
      this.#flush()
    })
  }

  async #append(sessionId: string, streamId: string, json: string, seq: string): Promise<string> {
    const prefix = this.#streamPrefix(sessionId)
    return (await APPEND.run(
      this.#redis,
      [prefix + streamId, this.#redis.key('mcp', 'events', sessionId)],
      [json, this.#max, this.#ttlMs, this.#maxStreams, streamId, prefix, seq],
    )) as string
  }

  async after(sessionId: string, lastEventId: string): Promise<StoredEvents | undefined> {
    const streamId = streamOfEventId(lastEventId)
    if (streamId === undefined) return undefined
    const seq = lastEventId.slice(streamId.length + 1)
    const entries = (await AFTER.run(this.#redis, [this.#streamPrefix(sessionId) + streamId], [seq])) as Entry[] | null
    // `<stream>_0` is the priming id: valid before the stream has stored anything (the handler
    // checks that the stream is one of this session's)
    if (entries === null) return /^0+$/.test(seq) ? { streamId, events: [] } : undefined
    return { streamId, events: entries.map(([id, fields]) => ({ id: `${streamId}_${id.slice(2)}`, message: JSON.parse(fields[1]!) as JsonRpcMessage })) }
  }

  async dropSession(sessionId: string): Promise<void> {
    await DROP.run(this.#redis, [this.#redis.key('mcp', 'events', sessionId)], [this.#streamPrefix(sessionId)])
  }

  #streamPrefix(sessionId: string): string {
    return this.#redis.key('mcp', 'events', sessionId, '')
  }
}
