// Issue 30: every `mcp-auth` line of docs/deployment.md's section on the embedded store runs as
// written against the real built CLI, in the page's order, with /var/… replaced by a temporary
// directory. A `start` line keeps its server running for the lines after it (status and backup
// run beside it, as the page says), until the next `start` line or the end.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { commandLines, EMBEDDED_STORE_SECTION, inSection } from '../helpers/doc-commands.js'
import { freePort } from '../helpers/free-port.js'
import { REPO_ROOT } from '../helpers/paths.js'

const page = await readFile(join(REPO_ROOT, 'docs/deployment.md'), 'utf8')
const commands = commandLines(page).filter(({ at }) => inSection(page, EMBEDDED_STORE_SECTION, at))
const root = await mkdtemp(join(tmpdir(), 'mcp-auth-store-doc-'))
let server: ChildProcess | undefined

afterAll(async () => {
  if (server !== undefined) await stopChild(server)
  await rm(root, { recursive: true, force: true })
})

describe("docs/deployment.md's embedded store section", () => {
  it('shows status, backup and restore', () => {
    const shown = commands.map(({ words }) => words[0])
    for (const verb of ['status', 'backup', 'restore', 'start']) expect(shown).toContain(verb)
  })

  it('runs each mcp-auth line of the section as written, in order, against the real CLI', async () => {
    for (const { at, words } of commands) {
      const args = words.map((word) => word.replace(/^\/var\//, `${root}/`))
      const where = `docs/deployment.md:${at}: mcp-auth ${args.join(' ')}`
      if (args[0] === 'start') {
        if (server !== undefined) await stopChild(server)
        server = (await startCli(args, { timeoutMs: 30_000, env: { PORT: String(await freePort()), MCP_AUTH_DRAIN_DELAY: '0' } })).child
        continue
      }
      const result = await runCli(args)
      expect(result.code, `${where}\n${result.stderr}`).toBe(0)
      // the page says status asks the running server
      if (args[0] === 'status' && !args.includes('--json')) expect(result.stdout, where).toMatch(/^server: +running \(pid \d+/m)
    }
  }, 120_000)
})
