import { afterEach, describe, expect, it } from 'vitest'
import type { AuthStorage } from '../../src/storage/types.js'

/** A hand-driven clock in epoch ms; each test starts at the same instant and moves it forward. */
export interface StorageClock {
  now: number
}

/**
 * Registers the behaviour every {@link AuthStorage} backend must show, under `describe(name)`.
 * `open` builds a fresh, empty backend reading time from `clock.now`; the contract closes each
 * backend it opened after the test, before any `afterEach` of the calling file runs. `revisions`:
 * whether the backend's adapters offer `revision` (in-process backends do).
 *
 * @example
 * describeStorageContract('createMemoryStorage', async (clock) => createMemoryStorage({ now: () => clock.now }), { revisions: true })
 */
export function describeStorageContract(name: string, open: (clock: StorageClock) => Promise<AuthStorage>, options: { revisions: boolean }): void {
  describe(name, () => {
    const opened: AuthStorage[] = []
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((storage) => storage.close()))
    })

    async function setup(): Promise<{ clock: StorageClock; storage: AuthStorage }> {
      const clock = { now: 1_700_000_000_000 }
      const storage = await open(clock)
      opened.push(storage)
      return { clock, storage }
    }

    describe('adapter', () => {
      it('finds what was upserted and forgets it once destroyed', async () => {
        const { storage } = await setup()
        const grants = storage.adapter('Grant')
        await grants.upsert('g1', { accountId: 'alice', grantId: 'g1' }, 60)
        expect(await grants.find('g1')).toEqual({ accountId: 'alice', grantId: 'g1' })
        await grants.destroy('g1')
        expect(await grants.find('g1')).toBeUndefined()
      })

      it('keeps models apart', async () => {
        const { storage } = await setup()
        await storage.adapter('Session').upsert('same-id', { kind: 'session' })
        expect(await storage.adapter('Grant').find('same-id')).toBeUndefined()
      })

      it('replaces a record on a second upsert, and its uid with it', async () => {
        const { storage } = await setup()
        const sessions = storage.adapter('Session')
        await sessions.upsert('s1', { uid: 'u1', accountId: 'alice' })
        await sessions.upsert('s1', { uid: 'u2', accountId: 'bob' })
        expect(await sessions.find('s1')).toEqual({ uid: 'u2', accountId: 'bob' })
        expect(await sessions.findByUid('u1')).toBeUndefined()
        expect(await sessions.findByUid('u2')).toEqual({ uid: 'u2', accountId: 'bob' })
      })

      it('consume stamps the epoch second it happened at', async () => {
        const { clock, storage } = await setup()
        const codes = storage.adapter('AuthorizationCode')
        await codes.upsert('c1', { grantId: 'g1' }, 60)
        clock.now += 1_500
        await codes.consume('c1')
        expect(await codes.find('c1')).toEqual({ grantId: 'g1', consumed: Math.floor(clock.now / 1000) })
      })

      it('finds by uid and by user code until the record is destroyed', async () => {
        const { storage } = await setup()
        const interactions = storage.adapter('Interaction')
        const deviceCodes = storage.adapter('DeviceCode')
        await interactions.upsert('i1', { uid: 'uid-1', prompt: 'login' }, 600)
        await deviceCodes.upsert('d1', { userCode: 'ABCD-EFGH', grantId: 'g1' }, 600)
        expect(await interactions.findByUid('uid-1')).toEqual({ uid: 'uid-1', prompt: 'login' })
        expect(await deviceCodes.findByUserCode('ABCD-EFGH')).toEqual({ userCode: 'ABCD-EFGH', grantId: 'g1' })
        expect(await interactions.findByUid('nope')).toBeUndefined()
        await deviceCodes.destroy('d1')
        expect(await deviceCodes.findByUserCode('ABCD-EFGH')).toBeUndefined()
      })

      it('revokeByGrantId removes that grant’s records of the model and nothing else', async () => {
        const { storage } = await setup()
        const tokens = storage.adapter('AccessToken')
        await tokens.upsert('t1', { grantId: 'g1' }, 60)
        await tokens.upsert('t2', { grantId: 'g1' }, 60)
        await tokens.upsert('t3', { grantId: 'g2' }, 60)
        await storage.adapter('RefreshToken').upsert('r1', { grantId: 'g1' }, 60)
        await tokens.revokeByGrantId('g1')
        expect(await tokens.find('t1')).toBeUndefined()
        expect(await tokens.find('t2')).toBeUndefined()
        expect(await tokens.find('t3')).toEqual({ grantId: 'g2' })
        expect(await storage.adapter('RefreshToken').find('r1')).toEqual({ grantId: 'g1' })
      })

      it('find returns undefined once a record has expired, by id, uid and user code', async () => {
        const { clock, storage } = await setup()
        const interactions = storage.adapter('Interaction')
        await interactions.upsert('i1', { uid: 'u1', userCode: 'UC' }, 10)
        clock.now += 9_999
        expect(await interactions.find('i1')).toBeDefined()
        clock.now += 1
        expect(await interactions.find('i1')).toBeUndefined()
        expect(await interactions.findByUid('u1')).toBeUndefined()
        expect(await interactions.findByUserCode('UC')).toBeUndefined()
      })

      it('never expires a record upserted without expiresIn', async () => {
        const { clock, storage } = await setup()
        await storage.adapter('Client').upsert('client-1', { client_id: 'client-1' })
        clock.now += 10 * 365 * 24 * 3600_000
        expect(await storage.adapter('Client').find('client-1')).toEqual({ client_id: 'client-1' })
      })

      it('does not let callers mutate stored payloads through what they passed in or got back', async () => {
        const { storage } = await setup()
        const grants = storage.adapter('Grant')
        const payload = { grantId: 'g1', scopes: ['mcp'] }
        await grants.upsert('g1', payload)
        payload.scopes.push('admin')
        const scopes = (await grants.find('g1'))?.['scopes'] as string[]
        scopes.push('root')
        expect(await grants.find('g1')).toEqual({ grantId: 'g1', scopes: ['mcp'] })
      })

      it('treats consume, destroy and revoke of unknown ids as no-ops', async () => {
        const { storage } = await setup()
        const tokens = storage.adapter('AccessToken')
        await expect(tokens.consume('nope')).resolves.toBeUndefined()
        await expect(tokens.destroy('nope')).resolves.toBeUndefined()
        await expect(tokens.revokeByGrantId('nope')).resolves.toBeUndefined()
      })

      it('claim lets exactly one of several concurrent callers set a field, stamped with the epoch second', async () => {
        const { clock, storage } = await setup()
        const tokens = storage.adapter('RefreshToken')
        await tokens.upsert('t1', { grantId: 'g1' }, 60)
        const results = await Promise.all(Array.from({ length: 8 }, () => tokens.claim('t1', 'consumed')))
        expect(results.filter(Boolean)).toHaveLength(1)
        expect(await tokens.find('t1')).toEqual({ grantId: 'g1', consumed: Math.floor(clock.now / 1000) })
        expect(await tokens.claim('t1', 'consumed')).toBe(false)
        // another field is a claim of its own
        expect(await tokens.claim('t1', 'graceUsed')).toBe(true)
      })

      it('claim refuses a missing or expired record, and a field the payload already carries', async () => {
        const { clock, storage } = await setup()
        const tokens = storage.adapter('RefreshToken')
        expect(await tokens.claim('nope', 'consumed')).toBe(false)
        await tokens.upsert('used', { grantId: 'g1', consumed: 1 }, 60)
        expect(await tokens.claim('used', 'consumed')).toBe(false)
        await tokens.upsert('old', { grantId: 'g1' }, 10)
        clock.now += 11_000
        expect(await tokens.claim('old', 'consumed')).toBe(false)
        expect(await tokens.find('nope')).toBeUndefined()
      })

      it('create stores under a free id for exactly one of several concurrent callers', async () => {
        // Issue 27, item 1: single-use values are claimed with create, first writer wins
        const { storage } = await setup()
        const replays = storage.adapter('ReplayDetection')
        const results = await Promise.all(Array.from({ length: 12 }, (_, i) => replays.create('jti-1', { iss: 'https://issuer.test', n: i }, 60)))
        expect(results.filter(Boolean)).toHaveLength(1)
        const winner = results.indexOf(true)
        expect(await replays.find('jti-1')).toEqual({ iss: 'https://issuer.test', n: winner })
        expect(await replays.create('jti-1', { iss: 'https://issuer.test' }, 60)).toBe(false)
        // another model, another id: claims of their own
        expect(await replays.create('jti-2', { iss: 'https://issuer.test' }, 60)).toBe(true)
        expect(await storage.adapter('Other').create('jti-1', {}, 60)).toBe(true)
      })

      it('create refuses an id an upserted live record holds, and writes nothing', async () => {
        const { storage } = await setup()
        const sessions = storage.adapter('Session')
        await sessions.upsert('s1', { uid: 'u1' })
        expect(await sessions.create('s1', { uid: 'u2' }, 60)).toBe(false)
        expect(await sessions.find('s1')).toEqual({ uid: 'u1' })
        expect(await sessions.findByUid('u1')).toEqual({ uid: 'u1' })
      })

      it('a created record expires like an upserted one, and its id may then be created again', async () => {
        const { clock, storage } = await setup()
        const replays = storage.adapter('ReplayDetection')
        expect(await replays.create('jti-1', { iss: 'a' }, 10)).toBe(true)
        clock.now += 9_000
        expect(await replays.create('jti-1', { iss: 'b' }, 10)).toBe(false)
        clock.now += 2_000
        // gone: claims do not pile up
        expect(await replays.find('jti-1')).toBeUndefined()
        expect(await replays.list()).toEqual([])
        expect(await replays.create('jti-1', { iss: 'c' }, 10)).toBe(true)
        expect(await replays.find('jti-1')).toEqual({ iss: 'c' })
      })

      it('a new upsert of a record forgets what was claimed on it before', async () => {
        const { storage } = await setup()
        const codes = storage.adapter('AuthorizationCode')
        await codes.upsert('c1', { grantId: 'g1' }, 60)
        expect(await codes.claim('c1', 'consumed')).toBe(true)
        await codes.upsert('c1', { grantId: 'g1' }, 60)
        expect(await codes.find('c1')).toEqual({ grantId: 'g1' })
      })

      if (!options.revisions) {
        it('offers no revision (it could not tell one without a round trip)', async () => {
          const { storage } = await setup()
          expect(storage.adapter('Client').revision).toBeUndefined()
        })
      }

      if (options.revisions)
        it('a revision stays while a record is unchanged and changes with every write to it', async () => {
          const { clock, storage } = await setup()
          const codes = storage.adapter('AuthorizationCode')
          if (codes.revision === undefined) throw new Error('this backend offers no revision')
          expect(codes.revision('c1')).toBeUndefined()
          await codes.upsert('c1', { grantId: 'g1' }, 60)
          const first = codes.revision('c1')
          expect(first).toBeDefined()
          await codes.find('c1')
          expect(codes.revision('c1')).toBe(first)
          await codes.upsert('c1', { grantId: 'g1' }, 60)
          const second = codes.revision('c1')
          expect(second).not.toBe(first)
          expect(await codes.claim('c1', 'consumed')).toBe(true)
          const third = codes.revision('c1')
          expect(third).not.toBe(second)
          expect(await codes.claim('c1', 'consumed')).toBe(false)
          expect(codes.revision('c1')).toBe(third)
          await codes.consume('c1')
          expect(codes.revision('c1')).not.toBe(third)
          await codes.destroy('c1')
          expect(codes.revision('c1')).toBeUndefined()
          await codes.upsert('c2', { grantId: 'g2' }, 10)
          clock.now += 11_000
          expect(codes.revision('c2')).toBeUndefined()
        })

      it('lists the live records of a model only', async () => {
        const { clock, storage } = await setup()
        const clients = storage.adapter('Client')
        await clients.upsert('a', { client_id: 'a' })
        await clients.upsert('b', { client_id: 'b' }, 10)
        await storage.adapter('Grant').upsert('g', { grantId: 'g' }, 60)
        clock.now += 11_000
        expect(await clients.list()).toEqual([{ id: 'a', payload: { client_id: 'a' } }])
      })
    })

    describe('records', () => {
      it('puts, gets, lists and deletes records per collection', async () => {
        const { storage } = await setup()
        await storage.records.put('accounts', 'a1', { id: 'a1', username: 'alice' })
        await storage.records.put('accounts', 'a2', { id: 'a2', username: 'bob' })
        await storage.records.put('links', 'a1', { id: 'other' })
        expect(await storage.records.get('accounts', 'a1')).toEqual({ id: 'a1', username: 'alice' })
        expect(await storage.records.list('accounts')).toEqual([
          { id: 'a1', username: 'alice' },
          { id: 'a2', username: 'bob' },
        ])
        await storage.records.delete('accounts', 'a1')
        expect(await storage.records.get('accounts', 'a1')).toBeUndefined()
        expect(await storage.records.list('missing')).toEqual([])
      })

      it('create stores a record only when its id is free: the first writer wins', async () => {
        const { storage } = await setup()
        const results = await Promise.all(['one', 'two', 'three'].map((name) => storage.records.create('keys', 'cluster', { name })))
        expect(results.filter(Boolean)).toHaveLength(1)
        const winner = ['one', 'two', 'three'][results.indexOf(true)]
        expect(await storage.records.get('keys', 'cluster')).toEqual({ name: winner })
        expect(await storage.records.create('keys', 'cluster', { name: 'late' })).toBe(false)
        await storage.records.delete('keys', 'cluster')
        expect(await storage.records.create('keys', 'cluster', { name: 'again' })).toBe(true)
      })

      it('returns copies of records', async () => {
        const { storage } = await setup()
        await storage.records.put('accounts', 'a1', { claims: { name: 'Alice' } })
        const got = await storage.records.get<{ claims: { name: string } }>('accounts', 'a1')
        got!.claims.name = 'Mallory'
        expect(await storage.records.get('accounts', 'a1')).toEqual({ claims: { name: 'Alice' } })
      })

      it('putIfRevision lets exactly one of several writers at one revision win, and refuses a missing record', async () => {
        const { storage } = await setup()
        expect(await storage.records.putIfRevision('accounts', 'a1', { name: 'ghost', rev: 1 }, 0)).toBe(false)
        expect(await storage.records.get('accounts', 'a1')).toBeUndefined()
        await storage.records.put('accounts', 'a1', { name: 'alice' })
        const results = await Promise.all(['one', 'two', 'three'].map((name) => storage.records.putIfRevision('accounts', 'a1', { name, rev: 1 }, 0)))
        expect(results.filter(Boolean)).toHaveLength(1)
        const winner = ['one', 'two', 'three'][results.indexOf(true)]
        expect(await storage.records.get('accounts', 'a1')).toEqual({ name: winner, rev: 1 })
        expect(await storage.records.putIfRevision('accounts', 'a1', { name: 'stale', rev: 1 }, 0)).toBe(false)
        expect(await storage.records.putIfRevision('accounts', 'a1', { name: 'next', rev: 2 }, 1)).toBe(true)
        expect(await storage.records.get('accounts', 'a1')).toEqual({ name: 'next', rev: 2 })
      })

      it('scan walks a collection page by page, every record once when nothing changes', async () => {
        const { storage } = await setup()
        for (let i = 0; i < 25; i++) await storage.records.put('accounts', `a${i}`, { n: i })
        await storage.records.put('other', 'x', { n: -1 })
        const seen = new Map<string, number>()
        let cursor: string | undefined
        let pages = 0
        do {
          const page = await storage.records.scan<{ n: number }>('accounts', { count: 10, ...(cursor !== undefined ? { cursor } : {}) })
          for (const entry of page.entries) seen.set(entry.id, entry.value.n)
          cursor = page.cursor
          pages++
        } while (cursor !== undefined && pages < 50)
        expect(seen.size).toBe(25)
        expect([...seen.entries()].every(([id, n]) => id === `a${n}`)).toBe(true)
        expect(await storage.records.scan('missing', { count: 10 })).toEqual({ entries: [] })
      })
    })
  })
}
