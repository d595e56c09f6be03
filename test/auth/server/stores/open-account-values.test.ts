// Issue 31, item 2: the per-account values reach a gateway with or without an authorization
// server of ours in its process, and go with the account they belong to.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuthorizationServer } from '../../../../src/auth/server/create-authorization-server.js'
import { openAccountValues } from '../../../../src/auth/server/stores/open-account-values.js'
import { defaults } from '../../../../src/config/defaults.js'
import { startRedisServer, type RedisServer } from '../../../helpers/redis-server.js'

const dirs: string[] = []
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-open-values-'))
  dirs.push(dir)
  return dir
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

describe('AuthorizationServer.accountValues', () => {
  it('deleting an account deletes its values, and leaves other accounts’ values', async () => {
    const dataDir = await tempDir()
    const as = await createAuthorizationServer({ issuer: 'http://127.0.0.1:1', dataDir })
    try {
      const alice = await as.accounts.setUser('alice', 'alice password')
      const bob = await as.accounts.setUser('bob', 'bob password')
      await as.accountValues.set(alice.id, 'GITHUB_TOKEN', 'alice token')
      await as.accountValues.set(bob.id, 'GITHUB_TOKEN', 'bob token')
      await as.deleteUser('alice')
      expect(await as.accountValues.valuesFor(alice.id)).toEqual({})
      expect(await as.accountValues.valuesFor(bob.id)).toEqual({ GITHUB_TOKEN: 'bob token' })
    } finally {
      await as.close()
    }
  })
})

describe('openAccountValues', () => {
  it('opens, without a server, the values a server of the same data directory sealed', async () => {
    const dataDir = await tempDir()
    const as = await createAuthorizationServer({ issuer: 'http://127.0.0.1:1', dataDir })
    await as.accountValues.set('external|42', 'API_KEY', 'sealed by the server')
    await as.close()
    const opened = await openAccountValues({ dataDir })
    try {
      expect(await opened.values.valuesFor('external|42')).toEqual({ API_KEY: 'sealed by the server' })
    } finally {
      await opened.close()
    }
  })

  it('refuses to create a new secrets.json over values sealed with a lost one', async () => {
    const dataDir = await tempDir()
    const first = await openAccountValues({ dataDir })
    await first.values.set('sub-1', 'TOKEN', 'sealed with the first key')
    await first.close()
    await rm(join(dataDir, defaults.authServer.keys.secretsFile))
    await expect(openAccountValues({ dataDir })).rejects.toThrow(/secrets\.json is missing, but the store holds data sealed/)
  })

  it('is refused while a server owns the embedded data directory', async () => {
    const dataDir = await tempDir()
    const as = await createAuthorizationServer({ issuer: 'http://127.0.0.1:1', dataDir })
    try {
      await expect(openAccountValues({ dataDir })).rejects.toThrow()
    } finally {
      await as.close()
    }
  })

  describe('on Redis', () => {
    let redis: RedisServer
    beforeAll(async () => {
      redis = await startRedisServer()
    })
    afterAll(() => redis.close())

    it("refuses a data directory without secrets.json, and one whose secrets.json is not the deployment's", async () => {
      const node = await tempDir()
      const as = await createAuthorizationServer({ issuer: 'http://127.0.0.1:1', dataDir: node, redis: redis.url })
      await as.accountValues.set('sub-1', 'TOKEN', 'from the node')
      await as.close()
      await expect(openAccountValues({ dataDir: await tempDir(), redis: { url: redis.url } })).rejects.toThrow(/secrets\.json is missing/)
      const stranger = await tempDir()
      await (await openAccountValues({ dataDir: stranger })).close() // creates secrets.json of its own
      await expect(openAccountValues({ dataDir: stranger, redis: { url: redis.url } })).rejects.toThrow(/differs from the secrets\.json/)
      const opened = await openAccountValues({ dataDir: node, redis: { url: redis.url, prefix: defaults.redis.prefix } })
      try {
        expect(await opened.values.valuesFor('sub-1')).toEqual({ TOKEN: 'from the node' })
      } finally {
        await opened.close()
      }
    })
  })
})
