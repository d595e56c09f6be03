/**
 * The verbs on one stored login (logout, whoami) share one shape (issue 29, item 4): the usage,
 * the client options, and the server URL checked before anything reads the store.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLIENT_OPTIONS } from '../../src/cli/client-auth.js'
import { UsageError } from '../../src/cli/command.js'
import { serverUsageTail } from '../../src/cli/server-usage-tail.js'
import { storedLoginCommand } from '../../src/cli/stored-login-command.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-stored-login-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const signal = new AbortController().signal

describe('storedLoginCommand', () => {
  const seen: { url: string; logout: string }[] = []
  const command = storedLoginCommand({
    name: 'peek',
    summary: 'look at the stored login',
    description: 'Says whether a login is stored.',
    async run(auth, url) {
      seen.push({ url, logout: typeof auth.logout })
      return 7
    },
  })

  it('takes the client options and a URL, and says so in its usage', () => {
    expect(command.options).toEqual(CLIENT_OPTIONS)
    expect(command.allowPositionals).toBe(true)
    expect(command.usage).toContain(
      '\nUsage: mcp-auth peek <url> [login options]\n\nSays whether a login is stored.\n\nThe login options are those of every client command (only --store matters here).\n',
    )
    expect(command.usage).toMatch(/ {2}-h, --help {3}show this help\n$/)
  })

  it('hands run the normalised server URL and the login helper for it, and returns its exit code', async () => {
    const code = await command.run({ store: join(dir, 'tokens.json') }, ['http://LOCALHOST:9/a/../mcp'], { signal })
    expect(code).toBe(7)
    expect(seen).toEqual([{ url: 'http://localhost:9/mcp', logout: 'function' }])
  })

  it('refuses a missing or non-https remote URL as a usage error before reading the store', async () => {
    await expect(command.run({}, [], { signal })).rejects.toBeInstanceOf(UsageError)
    await expect(command.run({}, ['http://example.com/mcp'], { signal })).rejects.toThrow(/https/)
    expect(seen).toHaveLength(1)
  })
})

describe('serverUsageTail', () => {
  it('lines --help up at the column and names what else makes /healthz answer 503', () => {
    const tail = serverUsageTail(21, 'storage is unreachable')
    expect(tail).toContain('\n  -h, --help         show this help\n')
    expect(tail.endsWith('Health: GET /healthz (200, or 503 when storage is unreachable or the process is draining).')).toBe(true)
    expect(tail).toMatch(/^ {2}--redis URL {8}keep every shared state in Redis/)
    expect(tail).toContain('\n  --drain-delay S    on SIGTERM')
  })
})
