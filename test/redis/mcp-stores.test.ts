/**
 * Issue 16: the Redis session and event stores of the Streamable HTTP transport, against a real
 * redis-server: the same rules as the in-memory stores, plus what several processes need (ids
 * that stay unique across processes and expiry, caps counted across processes, idle expiry).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { JsonRpcMessage } from '../../src/jsonrpc/index.js'
import { RedisConnection } from '../../src/redis/connection.js'
import { RedisEventStore } from '../../src/redis/event-store.js'
import { RedisSessionStore } from '../../src/redis/session-store.js'
import type { SessionState } from '../../src/sessions/session-store.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

let redis: RedisServer
const connections: RedisConnection[] = []
let prefixes = 0

beforeAll(async () => {
  redis = await startRedisServer()
})
afterAll(() => redis.close())
afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()))
})

/** A connection under a prefix of its own; `share` gives a second process the same prefix. */
async function connect(share?: RedisConnection): Promise<RedisConnection> {
  const connection = await RedisConnection.connect({ url: redis.url, prefix: share?.prefix ?? `stores${++prefixes}:` })
  connections.push(connection)
  return connection
}

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: n, progressToken: 't' } })
const seq = (id: string) => Number(id.slice(id.lastIndexOf('_') + 1))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('RedisEventStore', () => {
  it('replays exactly what a stream sent after the given id, with the ids it gave, in order', async () => {
    const store = new RedisEventStore(await connect())
    const ids: string[] = []
    for (const n of [1, 2, 3]) ids.push(await store.append('s', 'a', note(n)))
    expect(ids.every((id) => id.startsWith('a_'))).toBe(true)
    expect(ids.map(seq)).toEqual([...ids.map(seq)].sort((x, y) => x - y))
    expect(new Set(ids).size).toBe(3)
    expect(await store.after('s', ids[0]!)).toEqual({
      streamId: 'a',
      events: [
        { id: ids[1], message: note(2) },
        { id: ids[2], message: note(3) },
      ],
    })
    expect(await store.after('s', ids[2]!)).toEqual({ streamId: 'a', events: [] })
  })

  it('gives unique, growing ids to one stream written by two processes', async () => {
    const first = await connect()
    const [a, b] = [new RedisEventStore(first), new RedisEventStore(await connect(first))]
    const ids = await Promise.all(Array.from({ length: 40 }, (_, n) => (n % 2 === 0 ? a : b).append('s', 'g', note(n))))
    expect(new Set(ids).size).toBe(40)
    const replayed = (await a.after('s', 'g_0'))!.events
    expect(replayed.map((e) => e.id).sort()).toEqual([...ids].sort())
    expect(replayed.map((e) => seq(e.id))).toEqual([...replayed.map((e) => seq(e.id))].sort((x, y) => x - y))
  })

  it('keeps streams and sessions apart, and refuses ids it never gave', async () => {
    const store = new RedisEventStore(await connect())
    const a1 = await store.append('s', 'a', note(1))
    await store.append('s', 'b', note(2))
    expect((await store.after('s', 'a_0'))?.events.map((e) => e.message)).toEqual([note(1)])
    expect((await store.after('s', 'b_0'))?.events.map((e) => e.message)).toEqual([note(2)])
    expect(await store.after('t', a1)).toBeUndefined()
    expect(await store.after('s', `a_${seq(a1) + 1}`)).toBeUndefined()
    expect(await store.after('s', 'a-1')).toBeUndefined()
    expect(await store.after('s', 'c_5')).toBeUndefined()
  })

  it('keeps the events of a single-writer stream under the numbers it chose, all of one loop turn together, resumable from another process', async () => {
    const store = new RedisEventStore(await connect())
    const other = new RedisEventStore(await connect(connections.at(-1)))
    // one loop turn: several answers of several streams, stored in one call
    const kept = [1, 2, 3].map((n) => store.keep('s1', 'post-a', n, JSON.stringify(note(n))))
    kept.push(store.keep('s1', 'post-b', 1, JSON.stringify(note(10))))
    expect(new Set(kept).size).toBe(1)
    await Promise.all(kept)
    expect(await other.after('s1', 'post-a_1')).toEqual({ streamId: 'post-a', events: [2, 3].map((n) => ({ id: `post-a_${n}`, message: note(n) })) })
    expect(await other.after('s1', 'post-a_0')).toMatchObject({ events: [{ id: 'post-a_1' }, { id: 'post-a_2' }, { id: 'post-a_3' }] })
    expect(await other.after('s1', 'post-b_0')).toEqual({ streamId: 'post-b', events: [{ id: 'post-b_1', message: note(10) }] })
  })

  it('stores what was kept while a call was in flight in the next call, in order, and flushed() waits for all of it', async () => {
    const connection = await connect()
    const store = new RedisEventStore(connection)
    const first = store.keep('s1', 'post-a', 1, JSON.stringify(note(1)))
    // the first call leaves after this loop turn; what comes while it runs waits for it
    await new Promise((resolve) => setImmediate(resolve))
    const later = [2, 3, 4].map((n) => store.keep('s1', 'post-a', n, JSON.stringify(note(n))))
    expect(new Set(later).size).toBe(1)
    expect(later[0]).not.toBe(first)
    const flushed = store.flushed()
    await flushed
    // flushed() resolved: nothing kept is left unstored, even before its own promise was awaited
    const events = await new RedisEventStore(await connect(connection)).after('s1', 'post-a_0')
    expect(events?.events.map((event) => event.id)).toEqual(['post-a_1', 'post-a_2', 'post-a_3', 'post-a_4'])
  })
  it('accepts a priming id before anything was stored', async () => {
    const store = new RedisEventStore(await connect())
    expect(await store.after('s', 'g_0')).toEqual({ streamId: 'g', events: [] })
  })

  it('keeps at most maxEventsPerStream events and maxStreamsPerSession streams, dropping the oldest', async () => {
    const store = new RedisEventStore(await connect(), { maxEventsPerStream: 2, maxStreamsPerSession: 2 })
    const a = [await store.append('s', 'a', note(1)), await store.append('s', 'a', note(2)), await store.append('s', 'a', note(3))]
    expect((await store.after('s', 'a_0'))?.events.map((e) => e.id)).toEqual(a.slice(1))
    await store.append('s', 'b', note(4))
    await store.append('s', 'c', note(5))
    expect(await store.after('s', a[1]!)).toBeUndefined()
    expect((await store.after('s', 'b_0'))?.events).toHaveLength(1)
    expect((await store.after('s', 'c_0'))?.events).toHaveLength(1)
  })

  it('forgets a dropped session, and never gives an id twice, even after its stream expired', async () => {
    const connection = await connect()
    const store = new RedisEventStore(connection, { ttlMs: 50 })
    const before = await store.append('s', 'g', note(1))
    await sleep(120)
    expect(await connection.run((c) => c.exists(connection.key('mcp', 'events', 's', 'g')))).toBe(0)
    expect(await store.after('s', before)).toBeUndefined()
    const after = await store.append('s', 'g', note(2))
    expect(seq(after)).toBeGreaterThan(seq(before))
    await store.dropSession('s')
    expect(await connection.run((c) => c.keys(`${connection.prefix}*`))).toEqual([])
  })
})

const state = (id: string, owner = 'alice'): SessionState => ({
  id,
  protocolVersion: '2025-11-25',
  clientCapabilities: { elicitation: {} },
  clientInfo: { name: 'client', version: '1' },
  owner,
  createdAt: 1,
  subscriptions: ['test://x'],
  logLevel: 'warning',
  updatedAt: 2,
})

const limits = (overrides: Partial<{ maxSessions: number; maxSessionsPerPrincipal: number; idleBefore: number }> = {}) => ({
  maxSessions: 100,
  maxSessionsPerPrincipal: 2,
  idleBefore: Date.now() - 60_000,
  ...overrides,
})

describe('RedisSessionStore', () => {
  it('keeps a session for any process, until it is deleted', async () => {
    const first = await connect()
    const [a, b] = [new RedisSessionStore(first), new RedisSessionStore(await connect(first))]
    await a.set(state('s1'))
    expect(await b.get('s1')).toEqual(state('s1'))
    expect(await b.touch('s1')).toEqual(state('s1'))
    await b.delete('s1')
    expect(await a.touch('s1')).toBeUndefined()
    expect(await a.get('s1')).toBeUndefined()
  })

  it('expires a session nobody used for idleMs; each use starts the time again', async () => {
    const store = new RedisSessionStore(await connect(), { idleMs: 300 })
    await store.set(state('used'))
    await store.set(state('idle'))
    for (let i = 0; i < 4; i++) {
      await sleep(100)
      expect(await store.touch('used')).toBeDefined()
    }
    expect(await store.get('idle')).toBeUndefined()
    expect(await store.get('used')).toBeDefined()
  })

  it("admits a principal's sessions up to the cap across processes, and again once one ended", async () => {
    const first = await connect()
    const [a, b] = [new RedisSessionStore(first), new RedisSessionStore(await connect(first))]
    expect(await a.admit('s1', 'alice', limits())).toEqual({ admitted: true, evicted: [] })
    expect(await b.admit('s2', 'alice', limits())).toEqual({ admitted: true, evicted: [] })
    expect(await a.admit('s3', 'alice', limits())).toEqual({ admitted: false, reason: 'principal' })
    expect(await b.admit('s3', 'bob', limits())).toMatchObject({ admitted: true })
    await b.delete('s1')
    expect(await a.admit('s4', 'alice', limits())).toMatchObject({ admitted: true })
  })

  it('makes room by ending the least recently used session once it has been idle long enough', async () => {
    const store = new RedisSessionStore(await connect())
    await store.admit('old', 'alice', limits())
    await store.set(state('old'))
    await sleep(5)
    await store.admit('newer', 'alice', limits())
    await store.set(state('newer'))
    await sleep(5)
    expect(await store.touch('old')).toBeDefined()
    // everything counts as idle now: the least recently used one (newer, since old was touched) goes
    expect(await store.admit('third', 'alice', limits({ idleBefore: Date.now() + 1 }))).toEqual({ admitted: true, evicted: ['newer'] })
    expect(await store.get('newer')).toBeUndefined()
    expect(await store.get('old')).toBeDefined()
    expect(await store.admit('fourth', 'bob', limits({ maxSessions: 2 }))).toEqual({ admitted: false, reason: 'total' })
  })

  it('does not read a value stored in a format it does not know', async () => {
    const connection = await connect()
    const store = new RedisSessionStore(connection)
    await connection.run((c) => c.hset(connection.key('mcp', 'session', 'future'), 's', JSON.stringify({ v: 2, ...state('future') })))
    expect(await store.get('future')).toBeUndefined()
    expect(await store.touch('future')).toBeUndefined()
  })
})
