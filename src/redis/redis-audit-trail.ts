import type { Redis } from 'ioredis'
import { defaults } from '../config/defaults.js'
import type { AuditQuery, StoredAuditEvent } from '../observe/audit-event.js'
import type { AuditPage, AuditPageQuery, PagedAuditTrail } from '../observe/audit-page.js'
import { auditQueryLimit, auditQueryMatch } from '../observe/audit-query-match.js'
import { type Log, silentLog } from '../observe/log.js'
import type { RedisConnection } from './connection.js'
import { RedisScript } from './script.js'

const settings = defaults.observe.audit

/** Options of {@link RedisAuditTrail}; each defaults to `defaults.observe.audit`. */
export interface RedisAuditTrailOptions {
  /** Where a failure to write is reported (once per outage). */
  log?: Log
  /** Events kept, approximately (`XADD MAXLEN ~`). */
  maxLen?: number
  /** Events older than this (ms) are trimmed (`XTRIM MINID`) every `retentionCheckMs`. */
  retentionMs?: number
}

type StreamEntry = [id: string, fields: string[]]

/** Appends ARGV[2..] to the stream, each as its field `e`, capped at about ARGV[1] entries. */
const APPEND_ALL = new RedisScript(`
for i = 2, #ARGV do
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i])
end
return #ARGV - 1`)

/** Events sent in one call at most (a batch larger than this goes in several). */
const BATCH = 500

/** A stream id, as a cursor: what XREVRANGE reads on from (exclusive). */
const STREAM_ID = /^[0-9]{1,20}-[0-9]{1,20}$/

/**
 * The audit trail of a deployment: one capped Redis stream, `<prefix>audit`, that every node
 * appends to, so the events of all nodes are in one place, in the order Redis received them. The
 * stored id is the stream id. `append` queues the event and returns; the events of one turn of
 * the event loop go to Redis in one call (a script of one XADD each: one command instead of one
 * per event, about a tenth of the client's CPU). A failure drops them, counted and logged once
 * per outage.
 *
 * @example
 * const trail = new RedisAuditTrail(connection)
 * observer.attachTrail(trail)
 * @see https://redis.io/docs/latest/develop/data-types/streams/
 */
export class RedisAuditTrail implements PagedAuditTrail {
  readonly key: string
  readonly #connection: RedisConnection
  readonly #log: Log
  readonly #maxLen: string
  readonly #retentionMs: number
  readonly #followers = new Set<Redis>()
  #queue: string[] = []
  #sending: Promise<void> | undefined
  #trimmer: NodeJS.Timeout | undefined
  #lost = 0
  #failing = false
  #closed = false

  constructor(connection: RedisConnection, options: RedisAuditTrailOptions = {}) {
    this.#connection = connection
    this.key = connection.key('audit')
    this.#log = options.log ?? silentLog()
    this.#maxLen = String(options.maxLen ?? settings.redisMaxLen)
    this.#retentionMs = options.retentionMs ?? settings.redisRetentionMs
  }

  /** Events dropped so far (Redis away, after close). */
  lost(): number {
    return this.#lost
  }

  append(event: StoredAuditEvent): void {
    if (this.#closed || this.#queue.length >= settings.maxQueued) {
      this.#lose(1, this.#closed ? 'the trail is closed' : 'too many events wait for Redis')
      return
    }
    let json: string
    try {
      // the stream id is the event's id: the node's own is not kept
      const { id: _id, ...stored } = event
      json = JSON.stringify(stored)
    } catch {
      this.#lose(1, 'an event could not be written as JSON')
      return
    }
    this.#queue.push(json)
    this.#sending ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#send())
    if (this.#trimmer === undefined && this.#retentionMs > 0) {
      this.#trimmer = setInterval(() => void this.trimOld().catch(() => undefined), settings.retentionCheckMs)
      this.#trimmer.unref()
    }
  }

  /** Trims the events older than the retention (`XTRIM MINID`, exact: hourly, from the head); returns how many went. */
  async trimOld(now = Date.now()): Promise<number> {
    return this.#connection.run((client) => client.xtrim(this.key, 'MINID', String(Math.max(0, now - this.#retentionMs))))
  }

  async flushed(): Promise<void> {
    while (this.#sending !== undefined) await this.#sending
  }

  async #send(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, BATCH)
        try {
          await APPEND_ALL.run(this.#connection, [this.key], [this.#maxLen, ...batch])
          if (this.#failing) {
            this.#failing = false
            this.#log.warn({ lost: this.#lost }, 'audit trail: writing to Redis again')
          }
        } catch (error) {
          this.#lose(batch.length, `Redis: ${(error as Error).message}`)
        }
      }
    } finally {
      this.#sending = undefined
    }
  }

  async close(): Promise<void> {
    await this.flushed()
    this.#closed = true
    clearInterval(this.#trimmer)
    for (const follower of this.#followers) follower.disconnect()
    this.#followers.clear()
  }

  async query(query: AuditQuery): Promise<StoredAuditEvent[]> {
    return (await this.page(query)).items
  }

  /**
   * Matching events newest first, read `redisPageSize` entries at a time from the newest (or from
   * the cursor); it stops at the limit, at `since`, or after `redisMaxScan` entries, handing back a
   * cursor when older events may match.
   */
  async page(query: AuditPageQuery): Promise<AuditPage> {
    const limit = auditQueryLimit(query.limit, settings.queryLimit, settings.maxQueryLimit)
    const match = auditQueryMatch(query)
    if (query.cursor !== undefined && !STREAM_ID.test(query.cursor)) throw new RangeError('not a cursor of this audit trail')
    let end = query.cursor !== undefined ? `(${query.cursor}` : query.until !== undefined ? String(Math.floor(query.until)) : '+'
    const start = query.since !== undefined ? String(Math.max(0, Math.floor(query.since))) : '-'
    const items: StoredAuditEvent[] = []
    let scanned = 0
    for (;;) {
      const entries = (await this.#connection.run((client) => client.xrevrange(this.key, end, start, 'COUNT', settings.redisPageSize))) as StreamEntry[]
      for (const [id, fields] of entries) {
        const event = parseEntry(id, fields)
        if (event !== undefined && match(event)) {
          items.push(event)
          if (items.length >= limit) return { items, nextCursor: id }
        }
      }
      scanned += entries.length
      if (entries.length < settings.redisPageSize) return { items }
      const last = entries.at(-1)![0]
      if (scanned >= settings.redisMaxScan) return { items, nextCursor: last }
      end = `(${last}`
    }
  }

  /**
   * Hands each matching event any node appends from now on to `onEvent`, until `signal` aborts:
   * XREAD BLOCK on a connection of its own (a blocked connection runs nothing else). While Redis
   * is away it waits and reads on from the last event it handed out, so none is skipped.
   */
  async follow(query: AuditQuery, onEvent: (event: StoredAuditEvent) => void, signal: AbortSignal): Promise<void> {
    const match = auditQueryMatch(query)
    const newest = (await this.#connection.run((client) => client.xrevrange(this.key, '+', '-', 'COUNT', 1))) as StreamEntry[]
    let after = newest[0]?.[0] ?? '0-0'
    // no command timeout: XREAD blocks up to redisFollowBlockMs by design
    const reader = this.#connection.client.duplicate({ commandTimeout: undefined as unknown as number, enableOfflineQueue: true })
    reader.on('error', () => undefined)
    this.#followers.add(reader)
    const stop = (): void => reader.disconnect()
    signal.addEventListener('abort', stop, { once: true })
    try {
      while (!signal.aborted && !this.#closed) {
        let answer: Array<[string, StreamEntry[]]> | null
        try {
          answer = (await reader.xread('COUNT', settings.redisPageSize, 'BLOCK', settings.redisFollowBlockMs, 'STREAMS', this.key, after)) as Array<[string, StreamEntry[]]> | null
        } catch {
          if (signal.aborted || this.#closed) break
          await new Promise((resolve) => setTimeout(resolve, settings.redisFollowBlockMs))
          continue
        }
        for (const [id, fields] of answer?.[0]?.[1] ?? []) {
          after = id
          const event = parseEntry(id, fields)
          if (event !== undefined && match(event)) onEvent(event)
        }
      }
    } finally {
      signal.removeEventListener('abort', stop)
      this.#followers.delete(reader)
      reader.disconnect()
    }
  }

  #lose(count: number, why: string): void {
    this.#lost += count
    if (this.#failing) return
    this.#failing = true
    this.#log.error({ key: this.key, lost: this.#lost }, `audit trail: events are being lost (${why}); check that Redis answers`)
  }
}

function parseEntry(id: string, fields: string[]): StoredAuditEvent | undefined {
  const index = fields.indexOf('e')
  if (index < 0 || index % 2 !== 0) return undefined
  try {
    const event = JSON.parse(fields[index + 1] ?? '') as StoredAuditEvent
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') return undefined
    return { ...event, id }
  } catch {
    return undefined
  }
}
