// Issue 31, item 2: `mcp-auth user-env` sets the per-account values the gateway hands to an
// account's children: on a data directory, and on Redis while an `auth-server --redis` node runs.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openAccountValues } from '../../src/auth/server/stores/open-account-values.js'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'
import { storeText } from '../helpers/store-contents.js'

const TOKEN = 'ghp_alice-upstream-token-0123456789'
const EXTERNAL = 'https://idp.example.com/|user-42'

const dirs: string[] = []
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-user-env-'))
  dirs.push(dir)
  return dir
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

/** alice's account id (the token's `sub`), from `users list`. */
async function accountId(store: string[], username: string): Promise<string> {
  const list = await runCli(['users', 'list', ...store])
  const line = list.stdout.split('\n').find((each) => each.startsWith(`${username}\t`))
  if (line === undefined) throw new Error(`no ${username} in ${list.stdout}${list.stderr}`)
  return line.split('\t')[1]!
}

describe('mcp-auth user-env on a data directory', () => {
  let dataDir: string
  let store: string[]
  let alice: string
  beforeAll(async () => {
    dataDir = await tempDir()
    store = ['--data-dir', dataDir]
    expect((await runCli(['users', 'add', 'alice', ...store], { env: { MCP_AUTH_PASSWORD: 'alice has a long password' } })).code).toBe(0)
    alice = await accountId(store, 'alice')
  })

  it('sets a value from the first line of stdin, and says so in one line', async () => {
    const set = await runCli(['user-env', 'set', 'alice', 'GITHUB_TOKEN', '--value-stdin', ...store], { input: `${TOKEN}\nnot part of it\n` })
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toBe(`GITHUB_TOKEN set for alice (${alice})\n`)
  })

  it('sets a value from MCP_AUTH_VALUE', async () => {
    const set = await runCli(['user-env', 'set', 'alice', 'API_KEY', ...store], { env: { MCP_AUTH_VALUE: 'key-from-the-environment' } })
    expect(set.code, set.stderr).toBe(0)
  })

  it('lists names and when they were set, never the values', async () => {
    const list = await runCli(['user-env', 'list', 'alice', ...store])
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toMatch(/^API_KEY\tset \d{4}-\d\d-\d\dT[\d:.]+Z\nGITHUB_TOKEN\tset \d{4}-\d\d-\d\dT[\d:.]+Z\n$/)
    expect(list.stdout).not.toContain(TOKEN)
    expect(list.stdout).not.toContain('key-from-the-environment')
  })

  it('refuses NAME=VALUE on the command line, saying how to pass a value, without echoing it', async () => {
    const refused = await runCli(['user-env', 'set', 'alice', 'OTHER_TOKEN=s3cr3t-typed-in-the-shell', ...store])
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stderr).toContain('--value-stdin')
    expect(refused.stderr).toContain('MCP_AUTH_VALUE')
    expect(refused.stderr).not.toContain('s3cr3t')
  })

  it('refuses an unknown user, pointing at --subject for accounts of another authorization server', async () => {
    const refused = await runCli(['user-env', 'set', 'bob', 'API_KEY', ...store], { env: { MCP_AUTH_VALUE: 'v' } })
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stderr).toContain('no local account named bob')
    expect(refused.stderr).toContain('--subject')
  })

  it('refuses a reserved name and a value that would change the program, in one line', async () => {
    for (const name of ['MCP_AUTH_SUBJECT', 'LD_PRELOAD']) {
      const refused = await runCli(['user-env', 'set', 'alice', name, ...store], { env: { MCP_AUTH_VALUE: '/tmp/x' } })
      expect(refused.code, name).toBe(1)
      expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    }
  })

  it('sets values for a subject of another authorization server with --subject', async () => {
    const set = await runCli(['user-env', 'set', '--subject', EXTERNAL, 'API_KEY', '--value-stdin', ...store], { input: 'external key\n' })
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toBe(`API_KEY set for subject ${EXTERNAL}\n`)
    const list = await runCli(['user-env', 'list', '--subject', EXTERNAL, ...store])
    expect(list.stdout).toMatch(/^API_KEY\tset /)
  })

  it('leaves the values sealed in the store, readable by openAccountValues under the subjects', async () => {
    expect(await storeText(dataDir)).not.toContain(TOKEN)
    const opened = await openAccountValues({ dataDir })
    try {
      expect(await opened.values.valuesFor(alice)).toEqual({ GITHUB_TOKEN: TOKEN, API_KEY: 'key-from-the-environment' })
      expect(await opened.values.valuesFor(EXTERNAL)).toEqual({ API_KEY: 'external key' })
    } finally {
      await opened.close()
    }
  })

  it('unsets a name; unsetting it again fails', async () => {
    const unset = await runCli(['user-env', 'unset', 'alice', 'API_KEY', ...store])
    expect(unset.code, unset.stderr).toBe(0)
    expect(unset.stdout).toBe(`API_KEY unset for alice (${alice})\n`)
    const again = await runCli(['user-env', 'unset', 'alice', 'API_KEY', ...store])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('holds no API_KEY')
    expect((await runCli(['user-env', 'list', 'alice', ...store])).stdout).toMatch(/^GITHUB_TOKEN\t[^\n]+\n$/)
  })

  it('deleting the account deletes its values', async () => {
    expect((await runCli(['users', 'delete', 'alice', ...store])).code).toBe(0)
    const opened = await openAccountValues({ dataDir })
    try {
      expect(await opened.values.valuesFor(alice)).toEqual({})
      expect(await opened.values.valuesFor(EXTERNAL)).toEqual({ API_KEY: 'external key' })
    } finally {
      await opened.close()
    }
  })

  it('is refused while a server owns the data directory', async () => {
    const server = await startCli(['auth-server', ...store, '--port', '0'])
    try {
      const refused = await runCli(['user-env', 'list', '--subject', EXTERNAL, ...store])
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(`the server is running: add --server URL (or stop it)`)
      expect(refused.stderr).toContain(`in use by process ${server.child.pid}`)
    } finally {
      await stopChild(server.child)
    }
  }, 30_000)
})

describe('mcp-auth user-env on Redis while a node runs', () => {
  let redis: RedisServer
  let nodeDir: string
  let node: ChildProcess | undefined
  let store: string[]
  beforeAll(async () => {
    redis = await startRedisServer()
    nodeDir = await tempDir()
    store = ['--redis', redis.url, '--data-dir', nodeDir]
    node = (await startCli(['auth-server', '--redis', redis.url, '--data-dir', nodeDir, '--port', '0'], { timeoutMs: 30_000 })).child
  }, 60_000)
  afterAll(async () => {
    if (node !== undefined) await stopChild(node)
    await redis?.close()
  })

  it("sets values of a local account and of an external subject in the deployment's store, readable with the node's key", async () => {
    expect((await runCli(['users', 'add', 'alice', ...store], { env: { MCP_AUTH_PASSWORD: 'alice has a long password' } })).code).toBe(0)
    const alice = await accountId(store, 'alice')
    const set = await runCli(['user-env', 'set', 'alice', 'GITHUB_TOKEN', '--value-stdin', ...store], { input: `${TOKEN}\n` })
    expect(set.code, set.stderr).toBe(0)
    const external = await runCli(['user-env', 'set', '--subject', EXTERNAL, 'API_KEY', ...store], { env: { MCP_AUTH_VALUE: 'external key' } })
    expect(external.code, external.stderr).toBe(0)
    const opened = await openAccountValues({ dataDir: nodeDir, redis: { url: redis.url } })
    try {
      expect(await opened.values.valuesFor(alice)).toEqual({ GITHUB_TOKEN: TOKEN })
      expect(await opened.values.valuesFor(EXTERNAL)).toEqual({ API_KEY: 'external key' })
    } finally {
      await opened.close()
    }
  })

  it('two CLI runs at once setting two names of one subject both land', async () => {
    const [first, second] = await Promise.all(
      ['FIRST', 'SECOND'].map((name) => runCli(['user-env', 'set', '--subject', 'race', name, ...store], { env: { MCP_AUTH_VALUE: `${name} value` } })),
    )
    expect([first?.code, second?.code], `${first?.stderr}${second?.stderr}`).toEqual([0, 0])
    const list = await runCli(['user-env', 'list', '--subject', 'race', ...store])
    expect(list.stdout).toMatch(/^FIRST\t[^\n]+\nSECOND\t[^\n]+\n$/)
  })

  it("refuses a data directory that does not hold the deployment's secrets.json", async () => {
    const refused = await runCli(['user-env', 'set', '--subject', EXTERNAL, 'API_KEY', '--redis', redis.url, '--data-dir', await tempDir()], { env: { MCP_AUTH_VALUE: 'v' } })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('secrets.json is missing')
  })
})
