// Issue 16: every node of a deployment signs and seals with the same key files. Nodes starting at
// once on one empty shared directory end with the same files; a node with other files refuses to
// start, naming them; `mcp-auth keys rotate --redis` records the new keys for the deployment.
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createAuthorizationServer } from '../../../src/auth/server/create-authorization-server.js'
import { loadServerSecrets } from '../../../src/auth/server/keys/server-secrets.js'
import { loadSigningKeys } from '../../../src/auth/server/keys/signing-keys.js'
import { runCommand } from '../../../src/cli/command.js'
import { keysCommand } from '../../../src/cli/commands/keys.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js'

let redis: RedisServer
const dirs: string[] = []
const running: RunningAuthServer[] = []

beforeAll(async () => {
  redis = await startRedisServer()
})
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()))
})
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
  await redis.close()
})

async function emptyDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-keys-'))
  dirs.push(dir)
  return dir
}

async function node(dataDir: string, prefix: string): Promise<RunningAuthServer> {
  const server = await startAuthServer({ dataDir, redis: { url: redis.url, prefix } })
  running.push(server)
  return server
}

async function published(server: RunningAuthServer): Promise<string[]> {
  const { keys } = (await (await fetch(`${server.origin}/jwks`)).json()) as { keys: Array<{ kid: string }> }
  return keys.map((key) => key.kid).sort()
}

const copyKeys = async (from: string, to: string): Promise<void> => {
  for (const name of ['jwks.json', 'secrets.json']) await copyFile(join(from, name), join(to, name))
}

describe('key files created by several processes at once', () => {
  it('are the same for every process starting on one empty directory (the first writer wins)', async () => {
    const dir = await emptyDir()
    const loaded = await Promise.all(Array.from({ length: 6 }, () => Promise.all([loadServerSecrets(dir), loadSigningKeys(dir)])))
    const onDisk = JSON.parse(await readFile(join(dir, 'secrets.json'), 'utf8')) as unknown
    for (const [secrets, jwks] of loaded) {
      expect(secrets).toEqual(onDisk)
      expect(jwks.fingerprint).toBe(loaded[0]![1].fingerprint)
      expect(jwks.keys.map((key) => key.kid)).toEqual(loaded[0]![1].keys.map((key) => key.kid))
    }
  })

  it('give three nodes started together on one empty data directory the same published keys', async () => {
    const dir = await emptyDir()
    const nodes = await Promise.all([node(dir, 'together:'), node(dir, 'together:'), node(dir, 'together:')])
    const [first, ...others] = await Promise.all(nodes.map(published))
    expect(first).toHaveLength(2)
    for (const kids of others) expect(kids).toEqual(first)
  })
})

describe('a node whose key files differ from the deployment', () => {
  it('refuses to start, naming the files to copy, and starts once they are copied', async () => {
    const first = await emptyDir()
    const second = await emptyDir()
    await node(first, 'differ:')
    await expect(createAuthorizationServer({ dataDir: second, redis: { url: redis.url, prefix: 'differ:' } })).rejects.toThrow(
      `${join(second, 'jwks.json')} and ${join(second, 'secrets.json')} differ from the keys the other nodes of this deployment use`,
    )
    await copyKeys(first, second)
    const joined = await node(second, 'differ:')
    expect(await published(joined)).toEqual(await published(running[0]!))
  })

  it('names only secrets.json when the signing keys agree', async () => {
    const first = await emptyDir()
    const second = await emptyDir()
    await node(first, 'secrets:')
    await copyFile(join(first, 'jwks.json'), join(second, 'jwks.json'))
    const refusal = createAuthorizationServer({ dataDir: second, redis: { url: redis.url, prefix: 'secrets:' } })
    const message = await refusal.then(
      () => '',
      (error: Error) => error.message,
    )
    expect(message.startsWith(`${join(second, 'secrets.json')} differs from the keys the other nodes of this deployment use`)).toBe(true)
    expect(message).not.toContain(join(second, 'jwks.json'))
  })
})

describe('a node configured for another signing algorithm', () => {
  it('refuses to start without adding a key to the deployment’s jwks.json', async () => {
    const dir = await emptyDir()
    await node(dir, 'alg:')
    const before = await readFile(join(dir, 'jwks.json'), 'utf8')
    await expect(createAuthorizationServer({ dataDir: dir, redis: { url: redis.url, prefix: 'alg:' }, accessTokenAlg: 'ES384' })).rejects.toThrow(
      `${join(dir, 'jwks.json')} has no ES384 signing key`,
    )
    expect(await readFile(join(dir, 'jwks.json'), 'utf8')).toBe(before)
  })
})

describe('mcp-auth keys rotate --redis', () => {
  it('records the new keys: a node with the old jwks.json refuses to start, one with the new file starts', async () => {
    const rotated = await emptyDir()
    const stale = await emptyDir()
    await node(rotated, 'rotate:')
    await copyKeys(rotated, stale)
    await Promise.all(running.splice(0).map((server) => server.stop()))

    // the deployment's configuration file names its Redis (and prefix)
    const config = join(rotated, 'config.json')
    await writeFile(config, JSON.stringify({ redis: { url: redis.url, prefix: 'rotate:' } }))
    let printed = ''
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((text) => {
      printed += String(text)
      return true
    })
    try {
      expect(await runCommand(keysCommand, ['rotate', '--data-dir', rotated, '--config', config])).toBe(0)
    } finally {
      out.mockRestore()
    }
    expect(printed).toMatch(/recorded for the deployment[\s\S]*every node must now get the new .*jwks\.json and be restarted, one at a time/i)
    await expect(createAuthorizationServer({ dataDir: stale, redis: { url: redis.url, prefix: 'rotate:' } })).rejects.toThrow(`${join(stale, 'jwks.json')} differs`)
    await node(rotated, 'rotate:')
    await copyFile(join(rotated, 'jwks.json'), join(stale, 'jwks.json'))
    await node(stale, 'rotate:')
  })
})
