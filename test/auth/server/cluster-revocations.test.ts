// Issue 16: a grant revoked on one node reaches every node's in-memory list (Redis pub/sub), so
// each refuses the grant's JWT access tokens at once; a node that starts later loads the list.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJwt } from 'jose'
import * as oidc from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GrantRevocations, grantDigest } from '../../../src/auth/server/stores/grant-revocations.js'
import { createMemoryStorage } from '../../../src/storage/memory-storage.js'
import { RedisConnection } from '../../../src/redis/connection.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { authorizeWithForm } from '../../helpers/form-login.js'
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js'

const REDIRECT = 'http://127.0.0.1/callback'
const USER = { username: 'ada', password: 'ada password 1' }

let redis: RedisServer
beforeAll(async () => {
  redis = await startRedisServer()
})
afterAll(() => redis.close())

describe('GrantRevocations over a message bus', () => {
  it('adds a revocation published by another node to its own list, without sharing a store', async () => {
    const [a, b] = await Promise.all([RedisConnection.connect({ url: redis.url, prefix: 'bus:' }), RedisConnection.connect({ url: redis.url, prefix: 'bus:' })])
    const onA = await GrantRevocations.load(createMemoryStorage().records, 3600, { bus: a })
    const onB = await GrantRevocations.load(createMemoryStorage().records, 3600, { bus: b })
    try {
      expect(onB.isRevoked(grantDigest('grant-1'))).toBe(false)
      await onA.revoke('grant-1')
      await expect.poll(() => onB.isRevoked(grantDigest('grant-1')), { timeout: 2_000, interval: 10 }).toBe(true)
      expect(onB.isRevoked(grantDigest('grant-2'))).toBe(false)
    } finally {
      await Promise.all([onA.close(), onB.close()])
      await Promise.all([a.close(), b.close()])
    }
  })
})

describe('two authorization servers on one Redis', () => {
  let dataDir: string
  let one: RunningAuthServer
  let two: RunningAuthServer

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-cluster-'))
    // One data directory: the nodes share jwks.json and secrets.json, as a deployment must.
    one = await startAuthServer({ dataDir, redis: { url: redis.url, prefix: 'revoke:' } })
    two = await startAuthServer({ dataDir, redis: { url: redis.url, prefix: 'revoke:' } })
    await one.as.accounts.setUser(USER.username, USER.password)
  })
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()])
    await rm(dataDir, { recursive: true, force: true })
  })

  async function accessToken(): Promise<string> {
    const { config, callback, verifier } = await authorizeWithForm(one.issuer, USER, REDIRECT)
    return (await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })).access_token
  }

  it('refuses on server 2 a JWT whose grant was revoked on server 1, within moments', async () => {
    const claims = decodeJwt(await accessToken())
    expect(claims['gid']).toBeTypeOf('string')
    expect(two.as.isRevoked(claims)).toBe(false)
    expect(await one.as.grants.revokeAll({ username: USER.username })).toBe(1)
    await expect.poll(() => two.as.isRevoked(claims), { timeout: 2_000, interval: 10 }).toBe(true)
    expect(one.as.isRevoked(claims)).toBe(true)
  })

  it('a node started after the revocation refuses the token from its first request', async () => {
    const claims = decodeJwt(await accessToken())
    await one.as.grants.revokeAll({ username: USER.username })
    await expect.poll(() => one.as.isRevoked(claims), { timeout: 2_000, interval: 10 }).toBe(true)
    const three = await startAuthServer({ dataDir, redis: { url: redis.url, prefix: 'revoke:' } })
    try {
      expect(three.as.isRevoked(claims)).toBe(true)
    } finally {
      await three.stop()
    }
  })
})
