// Issue 27 (docs acceptance): every `mcp-auth` line of docs/deployment.md's shell blocks runs as
// written against the real built CLI, in the page's order, on a real redis-server, with the page's
// placeholders (redis.internal, the public origin, node addresses and ports, /var/lib/mcp-auth, a
// client id) replaced by local ones. A `start` line runs until it prints "listening", then stops.
import { readFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'
import { commandLines, EMBEDDED_STORE_SECTION, inSection } from '../helpers/doc-commands.js'
import { REPO_ROOT } from '../helpers/paths.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const page = await readFile(join(REPO_ROOT, 'docs/deployment.md'), 'utf8')
// the embedded store's section (a single process, no Redis) runs in deployment-store-commands.test.ts
const commands = commandLines(page).filter(({ at }) => !inSection(page, EMBEDDED_STORE_SECTION, at))

let redis: RedisServer
let dataDir: string
let port: number
/** What earlier lines printed that later ones name (a client id). */
const printed: Record<string, string> = {}

/** The page's placeholders, replaced word by word. */
function substituted(words: string[]): string[] {
  return words.map((word) =>
    word
      .replace('redis://:PASSWORD@redis.internal:6379', redis.url)
      .replace('https://mcp.example.com', `http://localhost:${port}`)
      .replace(/^10\.0\.0\.\d+$/, '127.0.0.1')
      .replace(/^4000$/, String(port))
      .replace(/^\/var\/lib\/mcp-auth/, dataDir)
      .replace(/^CLIENT_ID$/, () => printed['client_id'] ?? 'CLIENT_ID'),
  )
}

beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-deployment-doc-'))
  port = await freePort()
})

afterAll(async () => {
  await redis?.close()
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })
})

describe('docs/deployment.md', () => {
  it('shows every administration verb with --redis, and the commands a node is set up with', () => {
    const shown = new Set(commands.map(({ words }) => `${words[0]} ${words[1]}`))
    for (const verb of [
      'migrate --from',
      'start --redis',
      'keys list',
      'keys rotate',
      ...['add', 'set-scopes', 'list', 'disable', 'enable', 'delete'].map((action) => `users ${action}`),
      'grants list',
      'grants revoke',
      ...['add', 'list', 'remove'].map((action) => `clients ${action}`),
      ...['add', 'list', 'remove'].map((action) => `resources ${action}`),
    ]) {
      expect(shown, verb).toContain(verb)
    }
    for (const { words } of commands.filter(({ words }) => ['users', 'grants', 'clients', 'resources'].includes(words[0]!))) {
      expect(words, words.join(' ')).toContain('--redis')
    }
  })

  it('runs each mcp-auth line of the page as written, in order, against the real CLI', async () => {
    for (const { at, words } of commands) {
      const args = substituted(words)
      const where = `docs/deployment.md:${at}: mcp-auth ${args.join(' ')}`
      if (args[0] === 'start') {
        const node = await startCli(args, { timeoutMs: 30_000 })
        await stopChild(node.child)
        continue
      }
      const result = await runCli(args)
      expect(result.code, `${where}\n${result.stderr}`).toBe(0)
      const clientId = /^client_id: (\S+)$/m.exec(result.stdout)?.[1]
      if (clientId !== undefined) printed['client_id'] = clientId
    }
  }, 120_000)
})
