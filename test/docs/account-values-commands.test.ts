// Issue 31, item 2: the commands of docs/authorization-server.md's section on per-account values
// run as written against the real built CLI, in the page's order, on a temporary data directory;
// a line that pipes `printf '%s\n' "$VAR"` into mcp-auth gets that line on stdin.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openAccountValues } from '../../src/auth/server/stores/open-account-values.js'
import { runCli } from '../helpers/cli-process.js'
import { inSection, shellWords } from '../helpers/doc-commands.js'
import { REPO_ROOT } from '../helpers/paths.js'

const SECTION = "## Per-account values for the gateway's children"
const page = await readFile(join(REPO_ROOT, 'docs/authorization-server.md'), 'utf8')
const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-values-doc-'))
afterAll(() => rm(dataDir, { recursive: true, force: true }))

/** The section's shell lines that run mcp-auth, with what a `printf | ` before it puts on stdin. */
function sectionCommands(): Array<{ at: number; words: string[]; input?: string }> {
  const lines = page.split('\n')
  const found: Array<{ at: number; words: string[]; input?: string }> = []
  let inBlock = false
  lines.forEach((line, i) => {
    if (!inSection(page, SECTION, i + 1)) return
    if (/^```(sh|bash|shell)\s*$/.test(line)) inBlock = true
    else if (line === '```') inBlock = false
    else if (inBlock) {
      const [before, command] = line.includes(' | ') ? line.split(' | ') : [undefined, line]
      const words = shellWords(command!)
      if (words[0] !== 'mcp-auth') return
      const piped = before === undefined ? undefined : /^printf '%s\\n' "\$(\w+)"$/.exec(before)
      if (before !== undefined && piped === undefined) throw new Error(`line ${i + 1}: only printf '%s\\n' "$VAR" | mcp-auth … is understood`)
      found.push({ at: i + 1, words: words.slice(1), ...(piped ? { input: `value of ${piped[1]}\n` } : {}) })
    }
  })
  return found
}

describe("docs/authorization-server.md's section on per-account values", () => {
  const commands = sectionCommands()

  it('shows set (from stdin, and with --subject), list and unset', () => {
    const shown = commands.map(({ words }) => words.slice(0, 2).join(' '))
    for (const verb of ['users add', 'user-env set', 'user-env list', 'user-env unset']) expect(shown).toContain(verb)
    expect(commands.some(({ words }) => words.includes('--subject'))).toBe(true)
  })

  it('runs each mcp-auth line as written, in order, and the values land under the right subjects', async () => {
    for (const { at, words, input } of commands) {
      const result = await runCli([...words, '--data-dir', dataDir], { env: { MCP_AUTH_PASSWORD: 'alice has a long password' }, ...(input !== undefined ? { input } : {}) })
      expect(result.code, `docs/authorization-server.md:${at}: mcp-auth ${words.join(' ')}\n${result.stderr}`).toBe(0)
    }
    const opened = await openAccountValues({ dataDir })
    try {
      const alice = (await opened.accounts.findByUsername('alice'))!.id
      // set, then unset by the page's last line
      expect(await opened.values.valuesFor(alice)).toEqual({})
      expect(await opened.values.valuesFor('https://idp.example.com/|bob')).toEqual({ API_KEY: 'value of BOB_API_KEY' })
    } finally {
      await opened.close()
    }
  }, 60_000)
})
