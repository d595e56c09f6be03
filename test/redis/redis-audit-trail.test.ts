/**
 * Issue 33: the audit trail of a deployment, one capped Redis stream every node appends to,
 * against a real redis-server; two connections stand for two nodes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { AuditEvent, StoredAuditEvent } from '../../src/observe/audit-event.js'
import { RedisConnection } from '../../src/redis/connection.js'
import { RedisAuditTrail } from '../../src/redis/redis-audit-trail.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

let redis: RedisServer
const connections: RedisConnection[] = []
let prefixes = 0
let sequence = 0

beforeAll(async () => {
  redis = await startRedisServer()
})
afterAll(() => redis.close())
afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()))
})

async function connect(share?: RedisConnection): Promise<RedisConnection> {
  const connection = await RedisConnection.connect({ url: redis.url, prefix: share?.prefix ?? `audit${++prefixes}:` })
  connections.push(connection)
  return connection
}

function stored(event: Partial<AuditEvent> & { node?: string } = {}): StoredAuditEvent {
  const now = Date.now()
  return { id: `${now}-${sequence++}`, at: new Date(now).toISOString(), node: 'n1', type: 'sign-in.succeeded', result: 'success', ...event }
}

describe('RedisAuditTrail', () => {
  it('keeps every node’s events in one stream, newest first, the stream id as the event id', async () => {
    const one = new RedisAuditTrail(await connect())
    const two = new RedisAuditTrail(await connect(connections[0]))
    one.append(stored({ username: 'alice', node: 'n1' }))
    await one.flushed()
    two.append(stored({ username: 'bob', node: 'n2' }))
    await two.flushed()
    one.append(stored({ type: 'token.issued', subject: 'sub-a', clientId: 'cli', node: 'n1' }))
    await one.flushed()
    for (const trail of [one, two]) {
      const events = await trail.query({})
      expect(events.map((event) => event.node)).toEqual(['n1', 'n2', 'n1'])
      expect(events[0]!.id).toMatch(/^\d+-\d+$/)
      expect(events[1]!.username).toBe('bob')
    }
    expect(await connections[0]!.client.xlen(one.key)).toBe(3)
  })

  it('filters while reading: user, client, types and prefixes, since, limit', async () => {
    const trail = new RedisAuditTrail(await connect())
    trail.append(stored({ type: 'sign-in.failed', result: 'failure', username: 'alice' }))
    trail.append(stored({ type: 'sign-in.succeeded', username: 'alice', clientId: 'cli' }))
    trail.append(stored({ type: 'client.blocked', actor: { username: 'root' }, clientId: 'other' }))
    await trail.flushed()
    const middle = Date.now()
    await new Promise((resolve) => setTimeout(resolve, 5))
    for (let i = 0; i < 20; i++) trail.append(stored({ type: 'token.issued', subject: `s${i}`, clientId: 'bulk' }))
    await trail.flushed()
    expect((await trail.query({ user: 'alice' })).map((event) => event.type)).toEqual(['sign-in.succeeded', 'sign-in.failed'])
    expect((await trail.query({ user: 'root' })).map((event) => event.type)).toEqual(['client.blocked'])
    expect((await trail.query({ clientId: 'cli' })).map((event) => event.type)).toEqual(['sign-in.succeeded'])
    expect(await trail.query({ types: ['sign-in.'] })).toHaveLength(2)
    expect((await trail.query({ since: middle + 1 })).every((event) => event.type === 'token.issued')).toBe(true)
    expect(await trail.query({ since: middle + 1 })).toHaveLength(20)
    expect((await trail.query({ limit: 5 })).map((event) => event.subject)).toEqual(['s19', 's18', 's17', 's16', 's15'])
  })

  it('pages with the stream id as the cursor', async () => {
    const trail = new RedisAuditTrail(await connect())
    for (let i = 0; i < 25; i++) trail.append(stored({ subject: `s${i}` }))
    await trail.flushed()
    const first = await trail.page({ limit: 10 })
    const second = await trail.page({ limit: 10, cursor: first.nextCursor! })
    const third = await trail.page({ limit: 10, cursor: second.nextCursor! })
    expect([...first.items, ...second.items, ...third.items].map((event) => event.subject)).toEqual(Array.from({ length: 25 }, (_, i) => `s${24 - i}`))
    expect(third.nextCursor).toBeUndefined()
    await expect(trail.page({ cursor: '+' })).rejects.toThrow(RangeError)
  })

  it('caps the stream at about its maximum length, the oldest going first', async () => {
    const connection = await connect()
    const trail = new RedisAuditTrail(connection, { maxLen: 100 })
    for (let i = 0; i < 1000; i++) trail.append(stored({ subject: `s${i}` }))
    await trail.flushed()
    const length = await connection.client.xlen(trail.key)
    expect(length).toBeLessThan(300)
    expect(length).toBeGreaterThanOrEqual(100)
    expect((await trail.query({ limit: 1 }))[0]!.subject).toBe('s999')
  })

  it('trims events older than the retention', async () => {
    const connection = await connect()
    const trail = new RedisAuditTrail(connection, { retentionMs: 60_000 })
    // an event of two minutes ago, then one now
    await connection.client.xadd(trail.key, `${Date.now() - 120_000}-0`, 'e', JSON.stringify({ ...stored({ subject: 'old' }), id: undefined }))
    trail.append(stored({ subject: 'new' }))
    await trail.flushed()
    expect(await trail.trimOld()).toBe(1)
    expect((await trail.query({})).map((event) => event.subject)).toEqual(['new'])
  })

  it('follows what the other node appends until the signal aborts', async () => {
    const one = new RedisAuditTrail(await connect())
    const two = new RedisAuditTrail(await connect(connections[0]))
    one.append(stored({ subject: 'before' }))
    await one.flushed()
    const seen: string[] = []
    const controller = new AbortController()
    const following = one.follow({ types: ['token.'] }, (event) => seen.push(`${event.node}:${event.subject}`), controller.signal)
    await new Promise((resolve) => setTimeout(resolve, 100))
    two.append(stored({ type: 'token.issued', subject: 'a', node: 'n2' }))
    two.append(stored({ type: 'sign-in.succeeded', subject: 'not-a-token', node: 'n2' }))
    one.append(stored({ type: 'token.issued', subject: 'b', node: 'n1' }))
    await Promise.all([one.flushed(), two.flushed()])
    await expect.poll(() => seen).toEqual(['n2:a', 'n1:b'])
    const started = Date.now()
    controller.abort()
    await following
    expect(Date.now() - started).toBeLessThan(500)
  })

  it('drops events while Redis is away, counts them and logs once', async () => {
    const own = await startRedisServer()
    try {
      const connection = await RedisConnection.connect({ url: own.url })
      const errors: string[] = []
      const log = { error: (_: unknown, message: string) => errors.push(message), warn: () => undefined } as never
      const trail = new RedisAuditTrail(connection, { log })
      await own.stop()
      for (let i = 0; i < 5; i++) expect(() => trail.append(stored())).not.toThrow()
      await trail.flushed()
      expect(trail.lost()).toBe(5)
      expect(errors).toHaveLength(1)
      expect(errors[0]).toContain('check that Redis answers')
      await trail.close()
      await connection.close()
    } finally {
      await own.close()
    }
  })
})
