/**
 * Issue 32: the server through the admin API: its state (version, storage, nodes), its signing
 * keys per node and their rotation (a sensitive action), the gateway's children (none here: see
 * test/gateway/gateway-children.test.ts). One node on the embedded store; two on one redis-server.
 */
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadSigningKeys } from '../../../../src/auth/server/keys/signing-keys.js'
import { adminCall, adminToken } from '../../../helpers/admin-api.js'
import { startAuthServer, type RunningAuthServer } from '../../../helpers/auth-server.js'
import { startRedisServer, type RedisServer } from '../../../helpers/redis-server.js'

const root = { username: 'root', password: 'root password 1' }
const { version } = JSON.parse(await readFile(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string }

describe('admin API: the server on one node (embedded store)', () => {
  let server: RunningAuthServer
  let token: string
  beforeAll(async () => {
    server = await startAuthServer()
    await server.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
    token = (await adminToken(server.origin, root)).access_token
  })
  afterAll(() => server?.stop(true))

  it('says its version, issuer, storage and its one node', async () => {
    const answer = await adminCall(server.origin, token, 'GET', '/state')
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ version, issuer: server.issuer, storage: { backend: 'embedded' } })
    expect(answer.body.storage.collections.accounts).toBeGreaterThan(0)
    expect(answer.body.nodes).toHaveLength(1)
    const { fingerprint } = await loadSigningKeys(server.dataDir)
    expect(answer.body.nodes[0]).toMatchObject({ pid: process.pid, version, signing_key_fingerprint: fingerprint, this_node: true, children: 0 })
  })

  it('lists no gateway children, and ends none', async () => {
    expect((await adminCall(server.origin, token, 'GET', '/children')).body).toEqual({ items: [] })
    const end = await adminCall(server.origin, token, 'DELETE', '/children/no-such-child')
    expect(end.status).toBe(404)
    expect(end.body.type).toBe('urn:mcp-auth:admin:not-found')
  })

  it('rotates the keys: the file changes, and the node signs with the old ones until it restarts', async () => {
    const keysBefore = await adminCall(server.origin, token, 'GET', '/keys')
    expect(keysBefore.body.old_key_nodes).toEqual([])
    const old = keysBefore.body.fingerprint
    const rotated = await adminCall(server.origin, token, 'POST', '/keys/rotate')
    expect(rotated.status).toBe(200)
    expect(rotated.body.kids).toHaveLength(2)
    expect(rotated.body.fingerprint).not.toBe(old)
    expect(rotated.body.fingerprint).toBe((await loadSigningKeys(server.dataDir)).fingerprint)
    expect(rotated.body.file).toBe(join(server.dataDir, 'jwks.json'))
    expect(rotated.body.copy_to).toEqual([])
    expect(rotated.body.restart).toHaveLength(1)
    const keysAfter = await adminCall(server.origin, token, 'GET', '/keys')
    expect(keysAfter.body.fingerprint).toBe(rotated.body.fingerprint)
    expect(keysAfter.body.nodes[0]).toMatchObject({ fingerprint: old, current: false })
    expect(keysAfter.body.old_key_nodes).toEqual([rotated.body.rotated_on])
  })

  it('refuses without an administrator’s token', async () => {
    expect((await adminCall(server.origin, undefined, 'GET', '/state')).status).toBe(401)
    expect((await adminCall(server.origin, undefined, 'POST', '/keys/rotate')).status).toBe(401)
  })
})

describe('admin API: a key rotation with an old sign-in', () => {
  it('is refused with a sign-in older than the sensitive age, asking for a new one (RFC 9470)', async () => {
    // the server's clock is this process's: set before it starts, so its checks read it too
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true })
    const server = await startAuthServer()
    try {
      await server.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
      const token = (await adminToken(server.origin, root)).access_token
      const before = await readFile(join(server.dataDir, 'jwks.json'), 'utf8')
      // six minutes on: within the token's ten-minute life and the hour of administration, past the five of a sensitive action
      vi.setSystemTime(Date.now() + 6 * 60_000)
      expect((await adminCall(server.origin, token, 'GET', '/keys')).status).toBe(200)
      const refused = await adminCall(server.origin, token, 'POST', '/keys/rotate')
      expect(refused.status).toBe(401)
      expect(refused.body.type).toBe('urn:mcp-auth:admin:login-too-old')
      expect(refused.headers.get('www-authenticate')).toMatch(/insufficient_user_authentication/)
      expect(refused.headers.get('www-authenticate')).toMatch(/max_age="?300/)
      expect(await readFile(join(server.dataDir, 'jwks.json'), 'utf8')).toBe(before)
    } finally {
      await server.stop(true)
      vi.useRealTimers()
    }
  })
})

describe('admin API: the server on two nodes sharing one redis-server', () => {
  let redis: RedisServer
  let dataDir: string
  const nodes: RunningAuthServer[] = []
  beforeAll(async () => {
    redis = await startRedisServer()
    dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-state-cluster-'))
    for (let i = 0; i < 2; i++) nodes.push(await startAuthServer({ dataDir, redis: { url: redis.url, prefix: 'state:' } }))
    await nodes[0]!.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  })
  afterAll(async () => {
    for (const node of nodes) await node.stop()
    await rm(dataDir, { recursive: true, force: true })
    await redis?.close()
  })

  it('lists both nodes with their fingerprints, and a stopped node no longer', async () => {
    const [a] = nodes as [RunningAuthServer]
    const token = (await adminToken(a.origin, root)).access_token
    const state = await adminCall(a.origin, token, 'GET', '/state')
    expect(state.status).toBe(200)
    expect(state.body.storage).toEqual({ backend: 'redis', prefix: 'state:', reachable: true })
    expect(state.body.nodes).toHaveLength(2)
    expect(state.body.nodes.map((node: { this_node: boolean }) => node.this_node)).toEqual([true, false])
    const fingerprint = (await loadSigningKeys(dataDir)).fingerprint
    for (const node of state.body.nodes) expect(node).toMatchObject({ pid: process.pid, version, signing_key_fingerprint: fingerprint })
    expect(new Set(state.body.nodes.map((node: { id: string }) => node.id)).size).toBe(2)

    const keys = await adminCall(a.origin, token, 'GET', '/keys')
    expect(keys.body).toMatchObject({ fingerprint, old_key_nodes: [] })
    expect(keys.body.nodes.every((node: { current: boolean }) => node.current)).toBe(true)
  })

  it('rotates on one node: the new fingerprint is recorded, the other node is to get the file, both still sign with the old key', async () => {
    const [a, b] = nodes as [RunningAuthServer, RunningAuthServer]
    const token = (await adminToken(a.origin, root)).access_token
    const ids = (await adminCall(a.origin, token, 'GET', '/state')).body.nodes.map((node: { id: string; host: string }) => ({ id: node.id, host: node.host }))
    const rotated = await adminCall(a.origin, token, 'POST', '/keys/rotate')
    expect(rotated.status).toBe(200)
    expect(rotated.body.rotated_on).toEqual(ids[0])
    expect(rotated.body.copy_to).toEqual([ids[1]])
    expect(rotated.body.restart).toEqual(ids)
    expect(rotated.body.detail).toContain('restart every node')
    // the answer is the same on the other node: the recorded fingerprint is the deployment's
    const tokenB = (await adminToken(b.origin, root)).access_token
    const keys = await adminCall(b.origin, tokenB, 'GET', '/keys')
    expect(keys.body.fingerprint).toBe(rotated.body.fingerprint)
    expect(keys.body.old_key_nodes.map((node: { id: string }) => node.id).sort()).toEqual(ids.map((node: { id: string }) => node.id).sort())
  })

  it('drops a stopped node from the list at once', async () => {
    const [a, b] = nodes as [RunningAuthServer, RunningAuthServer]
    const token = (await adminToken(a.origin, root)).access_token
    await b.stop()
    nodes.pop()
    const state = await adminCall(a.origin, token, 'GET', '/state')
    expect(state.body.nodes).toHaveLength(1)
  })
})

describe('admin API: two rotations at once on two nodes (each with its own data directory)', () => {
  it('lets one go through; the other changes no file and says so', async () => {
    const redis = await startRedisServer()
    const dirs = [await mkdtemp(join(tmpdir(), 'mcp-auth-rotate-a-')), await mkdtemp(join(tmpdir(), 'mcp-auth-rotate-b-'))]
    const started: RunningAuthServer[] = []
    try {
      started.push(await startAuthServer({ dataDir: dirs[0]!, redis: { url: redis.url, prefix: 'rotate:' } }))
      for (const name of ['jwks.json', 'secrets.json']) await copyFile(join(dirs[0]!, name), join(dirs[1]!, name))
      started.push(await startAuthServer({ dataDir: dirs[1]!, redis: { url: redis.url, prefix: 'rotate:' } }))
      await started[0]!.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
      const tokens = await Promise.all(started.map(async (node) => (await adminToken(node.origin, root)).access_token))
      const files = await Promise.all(dirs.map((dir) => readFile(join(dir, 'jwks.json'), 'utf8')))
      const answers = await Promise.all(started.map((node, i) => adminCall(node.origin, tokens[i], 'POST', '/keys/rotate')))
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409])
      const winner = answers.findIndex((answer) => answer.status === 200)
      const loser = 1 - winner
      // at the same moment the other claimed the record first; a moment later its own file is no longer the deployment's
      expect(answers[loser]!.body.detail).toMatch(/another node is rotating|differs from the keys/)
      expect(await readFile(join(dirs[loser]!, 'jwks.json'), 'utf8')).toBe(files[loser])
      expect(await readFile(join(dirs[winner]!, 'jwks.json'), 'utf8')).not.toBe(files[winner])
      const keys = await adminCall(started[loser]!.origin, tokens[loser], 'GET', '/keys')
      expect(keys.body.fingerprint).toBe(answers[winner]!.body.fingerprint)
      expect(keys.body.fingerprint).toBe((await loadSigningKeys(dirs[winner]!)).fingerprint)
    } finally {
      for (const node of started) await node.stop()
      for (const dir of dirs) await rm(dir, { recursive: true, force: true })
      await redis.close()
    }
  })
})
