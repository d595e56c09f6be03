// Issue 27: an upstream login's `state` and its result handle are one-time values. The same one
// arriving twice at once (two nodes of a Redis deployment, or one) is honoured once: an atomic
// claim in the store, not a read followed by a delete. The records expire with the interaction.
import type { Context } from 'koa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UPSTREAM_PENDING_MODEL, UpstreamLogin } from '../../../src/auth/delegation/upstream-login.js'
import type { UpstreamOptions } from '../../../src/auth/server/options.js'
import { defaults } from '../../../src/config/defaults.js'
import { createMemoryStorage } from '../../../src/storage/memory-storage.js'
import { RedisConnection } from '../../../src/redis/connection.js'
import { createRedisStorage } from '../../../src/redis/redis-storage.js'
import type { AuthStorage } from '../../../src/storage/types.js'
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js'

const CALLBACK = 'https://as.example/upstream/callback'
// Explicit endpoints: no discovery, and nothing here reaches them (the callbacks carry an error).
const UPSTREAM = {
  issuer: 'https://idp.example',
  clientId: 'our-as',
  clientSecret: 'our-as-secret-0123456789',
  endpoints: { authorization_endpoint: 'https://idp.example/authorize', token_endpoint: 'https://idp.example/token' },
} as UpstreamOptions
const N = 12

let redisServer: RedisServer
let redis: RedisConnection

beforeAll(async () => {
  redisServer = await startRedisServer()
  redis = await RedisConnection.connect({ url: redisServer.url, prefix: 'upstream-single-use:' })
})
afterAll(async () => {
  await redis?.close()
  await redisServer?.close()
})

function loginOver(storage: AuthStorage): UpstreamLogin {
  return new UpstreamLogin({ upstream: UPSTREAM, callbackUrl: CALLBACK, records: storage.records, pending: storage.adapter(UPSTREAM_PENDING_MODEL), accounts: {} as never })
}

/** Starts a login for interaction `uid` and returns the `state` it sent the browser away with. */
async function started(login: UpstreamLogin, uid: string): Promise<string> {
  let location = ''
  await login.start({ redirect: (url: string) => (location = url) } as unknown as Context, uid)
  return new URL(location).searchParams.get('state')!
}

const callbackCtx = (state: string): Context => ({ originalUrl: `/upstream/callback?state=${state}&error=access_denied` }) as unknown as Context

describe.each([
  ['memory', () => createMemoryStorage()],
  // two stores over one Redis: two nodes of one deployment
  ['Redis, two nodes', () => createRedisStorage({ connection: redis })],
])('upstream login one-time values (%s)', (_name, open) => {
  it(`honours one state sent ${N} times at once once, and its result handle once`, async () => {
    const first = open()
    const second = open()
    const nodes = [loginOver(first), loginOver(second)]
    const state = await started(nodes[0]!, 'interaction-1')
    const backs = await Promise.all(Array.from({ length: N }, (_, i) => nodes[i % 2]!.callback(callbackCtx(state))))
    const won = backs.filter((back) => back !== undefined)
    expect(won).toHaveLength(1)
    expect(won[0]!.uid).toBe('interaction-1')

    // a handle presented for another interaction is refused without using it up
    expect(await nodes[1]!.take('interaction-2', won[0]!.handle)).toBeUndefined()
    const results = await Promise.all(Array.from({ length: N }, (_, i) => nodes[i % 2]!.take('interaction-1', won[0]!.handle)))
    const taken = results.filter((result) => result !== undefined)
    expect(taken).toEqual([{ error: 'access_denied', error_description: 'the identity provider answered access_denied' }])
  })
})

describe('upstream login records', () => {
  it('expire with the interaction when the browser never comes back', async () => {
    let now = Date.now()
    const storage = createMemoryStorage({ now: () => now })
    const login = loginOver(storage)
    const state = await started(login, 'interaction-3')
    expect(await storage.adapter(UPSTREAM_PENDING_MODEL).list()).toHaveLength(1)
    now += defaults.authServer.ttl.interaction * 1000 + 1
    expect(await storage.adapter(UPSTREAM_PENDING_MODEL).list()).toHaveLength(0)
    expect(await login.callback(callbackCtx(state))).toBeUndefined()
  })
})
