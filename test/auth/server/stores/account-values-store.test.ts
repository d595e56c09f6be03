// Issue 31, item 2: per-account values an operator sets for the gateway's children, sealed in the
// store and keyed by subject, on every backend (memory, the embedded store, a real redis-server).
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AccountValueError } from '../../../../src/auth/server/stores/account-value-error.js'
import { AccountValuesStore } from '../../../../src/auth/server/stores/account-values-store.js'
import { defaults } from '../../../../src/config/defaults.js'
import { RedisConnection } from '../../../../src/redis/connection.js'
import { createRedisStorage } from '../../../../src/redis/redis-storage.js'
import { createLowdbStorage } from '../../../../src/storage/lowdb-storage.js'
import { createMemoryStorage } from '../../../../src/storage/memory-storage.js'
import type { AuthStorage } from '../../../../src/storage/types.js'
import { startRedisServer, type RedisServer } from '../../../helpers/redis-server.js'
import { storeText } from '../../../helpers/store-contents.js'

const KEY = randomBytes(32)
const SECRET = 'ghp_the-plaintext-token-of-alice'
const refusal = (code: AccountValueError['code']) => expect.objectContaining({ name: 'AccountValueError', code })

interface Backend {
  storage: AuthStorage
  /** Everything the backend holds at rest as text (the embedded store's files, Redis's keys and values); the memory store holds nothing at rest. */
  text?(): Promise<string>
  close(): Promise<void>
}

let redis: RedisServer
const connections: RedisConnection[] = []
beforeAll(async () => {
  redis = await startRedisServer()
})
afterAll(async () => {
  for (const connection of connections) await connection.close()
  await redis.close()
})

async function redisStorage(prefix: string): Promise<AuthStorage> {
  const connection = await RedisConnection.connect({ url: redis.url, prefix })
  connections.push(connection)
  return createRedisStorage({ connection })
}

const backends: Record<string, () => Promise<Backend>> = {
  memory: async () => ({ storage: createMemoryStorage(), close: async () => undefined }),
  embedded: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-values-'))
    const storage = await createLowdbStorage({ file: join(dir, defaults.storage.dbFile) })
    let closed = false
    return {
      storage,
      async text() {
        await storage.close()
        closed = true
        return storeText(dir)
      },
      async close() {
        if (!closed) await storage.close()
        await rm(dir, { recursive: true, force: true })
      },
    }
  },
  redis: async () => {
    const prefix = `values-${randomBytes(4).toString('hex')}:`
    const storage = await redisStorage(prefix)
    return {
      storage,
      async text() {
        const reader = await RedisConnection.connect({ url: redis.url, prefix })
        connections.push(reader)
        const parts: string[] = []
        // each value read by its type (DUMP would compress a long one and hide a plaintext)
        for await (const key of reader.keysStartingWith(prefix)) {
          const type = await reader.run((client) => client.type(key))
          const value = await reader.run(async (client): Promise<unknown> => {
            if (type === 'string') return client.get(key)
            if (type === 'hash') return client.hgetall(key)
            if (type === 'set') return client.smembers(key)
            if (type === 'zset') return client.zrange(key, '0', '-1', 'WITHSCORES')
            if (type === 'list') return client.lrange(key, 0, -1)
            throw new Error(`a ${type} key the test cannot read: ${key}`)
          })
          parts.push(key, JSON.stringify(value))
        }
        return parts.join('\n')
      },
      close: () => storage.close(),
    }
  },
}

describe.each(Object.keys(backends))('AccountValuesStore on the %s store', (name) => {
  let backend: Backend
  let values: AccountValuesStore
  beforeAll(async () => {
    backend = await backends[name]!()
    values = new AccountValuesStore(backend.storage, KEY)
  })
  afterAll(() => backend.close())

  it('gives back what was set, per subject, and lists names without values', async () => {
    await values.set('alice-id', 'GITHUB_TOKEN', SECRET)
    await values.set('alice-id', 'API_KEY', 'k-1')
    await values.set('bob-id', 'API_KEY', 'k-2')
    expect(await values.valuesFor('alice-id')).toEqual({ GITHUB_TOKEN: SECRET, API_KEY: 'k-1' })
    expect(await values.valuesFor('bob-id')).toEqual({ API_KEY: 'k-2' })
    expect(await values.valuesFor('nobody')).toEqual({})
    const names = await values.names('alice-id')
    expect(names.map((entry) => entry.name)).toEqual(['API_KEY', 'GITHUB_TOKEN'])
    expect(JSON.stringify(names)).not.toContain(SECRET)
  })

  it('replaces a value, and unset removes one name and says whether it was there', async () => {
    await values.set('carol', 'TOKEN', 'old')
    await values.set('carol', 'TOKEN', 'new')
    await values.set('carol', 'OTHER', 'kept')
    expect(await values.valuesFor('carol')).toEqual({ TOKEN: 'new', OTHER: 'kept' })
    expect(await values.unset('carol', 'TOKEN')).toBe(true)
    expect(await values.unset('carol', 'TOKEN')).toBe(false)
    expect(await values.valuesFor('carol')).toEqual({ OTHER: 'kept' })
    await values.deleteSubject('carol')
    expect(await values.valuesFor('carol')).toEqual({})
    expect(await values.names('carol')).toEqual([])
  })

  it('stores every value sealed: the record holds no plaintext', async () => {
    await values.set('dave', 'GITHUB_TOKEN', SECRET)
    const raw = await backend.storage.records.get<{ values: Record<string, string> }>('account-values', 'dave')
    expect(raw?.values['GITHUB_TOKEN']).toMatch(/^enc:v1:/)
    expect(JSON.stringify(raw)).not.toContain(SECRET)
  })

  it('a sealed value moved to another subject or another name does not open', async () => {
    await values.set('erin', 'TOKEN', SECRET)
    await values.set('frank', 'TOKEN', 'frank’s own')
    const erin = await backend.storage.records.get<{ subject: string; values: Record<string, string>; setAt: Record<string, number> }>('account-values', 'erin')
    await backend.storage.records.put('account-values', 'frank', { ...erin!, subject: 'frank' })
    await expect(values.valuesFor('frank')).rejects.toEqual(refusal('unreadable'))
    await backend.storage.records.put('account-values', 'erin', { ...erin!, values: { OTHER: erin!.values['TOKEN'] } })
    await expect(values.valuesFor('erin')).rejects.toEqual(refusal('unreadable'))
  })

  it('a value sealed under another data key does not open', async () => {
    await values.set('gina', 'TOKEN', SECRET)
    await expect(new AccountValuesStore(backend.storage, randomBytes(32)).valuesFor('gina')).rejects.toEqual(refusal('unreadable'))
  })

  it('refuses names that are not environment variable names, in lower case, or reserved', async () => {
    for (const bad of ['', '1TOKEN', 'GITHUB-TOKEN', 'A B', 'TOKEN=x', 'github_token']) await expect(values.set('h', bad, 'v')).rejects.toEqual(refusal('invalid_name'))
    await expect(values.set('h', 'github_token', 'v')).rejects.toThrow(/upper case \(GITHUB_TOKEN\)/)
    await expect(values.set('h', 'X'.repeat(defaults.accountValues.maxNameLength + 1), 'v')).rejects.toEqual(refusal('invalid_name'))
    await expect(values.set('h', 'MCP_AUTH_SUBJECT', 'someone-else')).rejects.toEqual(refusal('reserved_name'))
    for (const program of ['PATH', 'HOME', 'NODE_OPTIONS', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'DYLD_INSERT_LIBRARIES']) {
      await expect(values.set('h', program, '/tmp/x')).rejects.toThrow(/would change which program a child runs/)
    }
    expect(await values.names('h')).toEqual([])
  })

  it('refuses empty values, NUL characters and values over the size cap; takes one at the cap', async () => {
    await expect(values.set('i', 'TOKEN', '')).rejects.toEqual(refusal('invalid_value'))
    await expect(values.set('i', 'TOKEN', 'a\0b')).rejects.toEqual(refusal('invalid_value'))
    await expect(values.set('i', 'TOKEN', 'é'.repeat(defaults.accountValues.maxValueBytes / 2 + 1))).rejects.toEqual(refusal('invalid_value'))
    const largest = 'x'.repeat(defaults.accountValues.maxValueBytes)
    await values.set('i', 'TOKEN', largest)
    expect((await values.valuesFor('i'))['TOKEN']).toBe(largest)
  })

  it('refuses a name beyond the per-subject cap, and still replaces an existing one', async () => {
    const cap = defaults.accountValues.maxNamesPerSubject
    for (let i = 0; i < cap; i++) await values.set('j', `NAME_${i}`, `v${i}`)
    await expect(values.set('j', 'ONE_MORE', 'v')).rejects.toEqual(refusal('too_many_names'))
    await values.set('j', 'NAME_0', 'replaced')
    const all = await values.valuesFor('j')
    expect(Object.keys(all)).toHaveLength(cap)
    expect(all['NAME_0']).toBe('replaced')
  })

  it('concurrent sets of different names for one subject all survive', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `CONCURRENT_${i}`)
    await Promise.all(names.map((each) => values.set('k', each, each.toLowerCase())))
    expect(Object.keys(await values.valuesFor('k')).sort()).toEqual([...names].sort())
  })
})

describe.each(['embedded', 'redis'])('AccountValuesStore at rest on the %s store', (name) => {
  it('holds no plaintext value: the subject is there, the value only sealed', async () => {
    const backend = await backends[name]!()
    try {
      await new AccountValuesStore(backend.storage, KEY).set('file-check', 'GITHUB_TOKEN', SECRET)
      const text = await backend.text!()
      expect(text).toContain('file-check')
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain('the-plaintext')
    } finally {
      await backend.close()
    }
  })
})

describe('AccountValuesStore on Redis from two processes at once', () => {
  it('two writers on two connections setting two names of one subject at once both land, round after round', async () => {
    const prefix = `race-${randomBytes(4).toString('hex')}:`
    const one = new AccountValuesStore(await redisStorage(prefix), KEY)
    const two = new AccountValuesStore(await redisStorage(prefix), KEY)
    for (let round = 0; round < 10; round++) {
      const subject = `subject-${round}`
      await Promise.all([one.set(subject, 'FIRST', `1-${round}`), two.set(subject, 'SECOND', `2-${round}`)])
      expect(await one.valuesFor(subject)).toEqual({ FIRST: `1-${round}`, SECOND: `2-${round}` })
    }
  })
})
