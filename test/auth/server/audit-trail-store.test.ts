// Issue 33: the authorization server keeps its audit trail beside its store — audit.jsonl in the
// data directory on one node, one Redis stream for every node of a deployment — unless its
// observer was given one; closing the server stores what was recorded.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuthorizationServer } from '../../../src/auth/server/create-authorization-server.js'
import type { AuditTrail, StoredAuditEvent } from '../../../src/observe/audit-event.js'
import { FileAuditTrail } from '../../../src/observe/file-audit-trail.js'
import { Observer } from '../../../src/observe/observer.js'
import { RedisAuditTrail } from '../../../src/redis/redis-audit-trail.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-trail-store-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('the trail of a server on embedded storage', () => {
  it('is audit.jsonl in the data directory, everything recorded stored once the server closed', async () => {
    const dataDir = join(dir, 'embedded')
    const as = await createAuthorizationServer({ issuer: 'http://127.0.0.1:1', dataDir })
    expect(as.observer.trail).toBeInstanceOf(FileAuditTrail)
    for (let i = 0; i < 100; i++) as.observer.audit({ type: 'keys.rotated', result: 'success', details: { n: i } })
    await as.close()
    const lines = (await readFile(join(dataDir, 'audit.jsonl'), 'utf8')).trim().split('\n')
    expect(lines).toHaveLength(100)
    expect(JSON.parse(lines[99]!).details.n).toBe(99)
  })

  it('keeps the trail its observer was given', async () => {
    const kept: StoredAuditEvent[] = []
    const given: AuditTrail = {
      append: (event) => void kept.push(event),
      query: async () => kept,
      follow: async () => undefined,
      flushed: async () => undefined,
      close: async () => undefined,
    }
    const as = await createAuthorizationServer({ issuer: 'http://127.0.0.1:1', dataDir: join(dir, 'given'), observer: new Observer({ trail: given }) })
    as.observer.audit({ type: 'keys.rotated', result: 'success' })
    await as.close()
    expect(as.observer.trail).toBe(given)
    expect(kept.map((event) => event.type)).toEqual(['keys.rotated'])
  })
})

describe('the trail of two nodes on one Redis', () => {
  let redis: RedisServer
  let one: RunningAuthServer
  let two: RunningAuthServer
  beforeAll(async () => {
    redis = await startRedisServer()
    const dataDir = join(dir, 'cluster')
    // one process here: each node named as two processes would be
    one = await startAuthServer({ dataDir, redis: { url: redis.url, prefix: 'trail:' }, observer: new Observer({ node: 'node-one' }) })
    two = await startAuthServer({ dataDir, redis: { url: redis.url, prefix: 'trail:' }, observer: new Observer({ node: 'node-two' }) })
  })
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()])
    await redis.close()
  })

  it('is one stream: each node reads both nodes’ events, each once, and follows the other’s', async () => {
    expect(one.as.observer.trail).toBeInstanceOf(RedisAuditTrail)
    const seen: string[] = []
    const controller = new AbortController()
    const following = one.as.observer.trail!.follow({}, (event) => seen.push(`${event.node}:${event.type}`), controller.signal)
    await new Promise((resolve) => setTimeout(resolve, 100))
    one.as.observer.audit({ type: 'client.blocked', result: 'success', clientId: 'c1' })
    two.as.observer.audit({ type: 'client.unblocked', result: 'success', clientId: 'c1' })
    await Promise.all([one.as.observer.trail!.flushed(), two.as.observer.trail!.flushed()])
    for (const node of [one, two]) {
      const events = await node.as.observer.trail!.query({ clientId: 'c1' })
      expect(events.map((event) => event.type).sort()).toEqual(['client.blocked', 'client.unblocked'])
      expect(events.map((event) => event.node).sort()).toEqual(['node-one', 'node-two'])
    }
    await expect.poll(() => seen.length).toBe(2)
    expect(seen.sort()).toEqual(['node-one:client.blocked', 'node-two:client.unblocked'])
    controller.abort()
    await following
  })
})
