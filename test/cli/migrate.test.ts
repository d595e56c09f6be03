// Issue 16: `mcp-auth migrate --from DIR --to redis://…` moves an embedded store into Redis; a
// server on Redis with DIR's key files then serves the same clients, accounts and tokens.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as oidc from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLowdbStorage } from '../../src/storage/lowdb-storage.js'
import { migrateStorage } from '../../src/storage/migrate.js'
import { RedisConnection } from '../../src/redis/connection.js'
import { createRedisStorage } from '../../src/redis/redis-storage.js'
import { startAuthServer } from '../helpers/auth-server.js'
import { runCli } from '../helpers/cli-process.js'
import { authorizeWithForm } from '../helpers/form-login.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const USER = { username: 'mira', password: 'mira password 1' }
const REDIRECT = 'http://127.0.0.1/callback'

let redis: RedisServer
const dirs: string[] = []
beforeAll(async () => {
  redis = await startRedisServer()
})
afterAll(async () => {
  await redis.close()
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-migrate-'))
  dirs.push(dir)
  return dir
}

describe('migrateStorage', () => {
  it('copies live model records with the lifetime they have left, skips expired ones, and copies every record', async () => {
    let clock = Date.now()
    const from = await createLowdbStorage({ file: join(await dataDir(), 'store.json'), now: () => clock })
    await from.adapter('Client').upsert('c1', { client_id: 'c1' })
    await from.adapter('Grant').upsert('g1', { grantId: 'g1', accountId: 'a' }, 3_600)
    await from.adapter('Session').upsert('s1', { uid: 'u1' }, 10)
    await from.records.put('accounts', 'a', { username: 'a' })
    clock += 20_000
    const connection = await RedisConnection.connect({ url: redis.url, prefix: 'unit:' })
    try {
      const to = createRedisStorage({ connection })
      expect(await migrateStorage(from, to, { now: () => clock })).toEqual({ models: { Client: 1, Grant: 1 }, collections: { accounts: 1 } })
      expect(await to.adapter('Client').find('c1')).toEqual({ client_id: 'c1' })
      expect(await to.adapter('Grant').find('g1')).toEqual({ grantId: 'g1', accountId: 'a' })
      expect(await to.adapter('Session').findByUid('u1')).toBeUndefined()
      expect(await to.records.get('accounts', 'a')).toEqual({ username: 'a' })
      const ttl = await connection.client.pttl('unit:oidc:Grant:r:g1')
      expect(ttl).toBeGreaterThan(3_570_000)
      expect(ttl).toBeLessThanOrEqual(3_581_000)
    } finally {
      await connection.close()
      await from.close()
    }
  })
})

describe('mcp-auth migrate', () => {
  it('moves a store a server used into Redis: its refresh token and its account work on a server on Redis', async () => {
    const dir = await dataDir()
    const before = await startAuthServer({ dataDir: dir })
    await before.as.accounts.setUser(USER.username, USER.password)
    const { config, callback, verifier } = await authorizeWithForm(before.issuer, USER, REDIRECT)
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })
    await before.stop()

    const migrated = await runCli(['migrate', '--from', dir, '--to', redis.url, '--redis-prefix', 'moved:'])
    expect(migrated.stderr).toBe('')
    expect(migrated.code).toBe(0)
    expect(migrated.stdout).toMatch(/RefreshToken 1/)
    expect(migrated.stdout).toMatch(/accounts 1/)

    const connection = await RedisConnection.connect({ url: redis.url, prefix: 'moved:' })
    // the same issuer (port) as before, the same key files, Redis instead of the file
    const after = await startAuthServer({ dataDir: dir, port: Number(new URL(before.issuer).port), storage: createRedisStorage({ connection }) })
    try {
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
      expect(refreshed.access_token).toBeTypeOf('string')
      expect(await after.as.accounts.authenticate(USER.username, USER.password)).toMatchObject({ username: USER.username })
    } finally {
      await after.stop()
      await connection.close()
    }
  }, 30_000)

  it('refuses a prefix that already holds keys, and a store a running server holds', async () => {
    const dir = await dataDir()
    const running = await startAuthServer({ dataDir: dir })
    await running.as.accounts.setUser(USER.username, USER.password)
    try {
      const locked = await runCli(['migrate', '--from', dir, '--to', redis.url, '--redis-prefix', 'locked:'])
      expect(locked.code).not.toBe(0)
      expect(locked.stderr).toMatch(/lock|running|another process/i)
    } finally {
      await running.stop()
    }
    const again = await runCli(['migrate', '--from', dir, '--to', redis.url, '--redis-prefix', 'twice:'])
    expect(again.code).toBe(0)
    const refused = await runCli(['migrate', '--from', dir, '--to', redis.url, '--redis-prefix', 'twice:'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/already holds keys under twice:/)
    expect((await runCli(['migrate', '--from', dir, '--to', redis.url, '--redis-prefix', 'twice:', '--force'])).code).toBe(0)
  }, 30_000)
})
