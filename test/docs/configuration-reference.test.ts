/**
 * Issue 29, item 5: docs/configuration.md is generated from src/config/defaults.ts by
 * scripts/configuration-reference.mjs, and `--check` fails when the two disagree: on the
 * repository's own files it passes, and on altered copies (a value, a comment, the page, an option
 * left without a comment) it fails, naming what differs and how to bring them back together.
 */
import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/paths.js'

const SCRIPT = join(REPO_ROOT, 'scripts/configuration-reference.mjs')
const DEFAULTS = join(REPO_ROOT, 'src/config/defaults.ts')
const PAGE = join(REPO_ROOT, 'docs/configuration.md')

function check(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [SCRIPT, '--check', ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 })
  return { status: run.status, out: `${run.stdout}${run.stderr}` }
}

describe('the configuration reference', () => {
  let dir: string
  let defaultsText: string
  let pageText: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-auth-config-ref-'))
    defaultsText = await readFile(DEFAULTS, 'utf8')
    pageText = await readFile(PAGE, 'utf8')
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  /** A copy of defaults.ts with one replacement (which must apply), checked against the real page. */
  async function checkAlteredDefaults(from: string, to: string): Promise<{ status: number | null; out: string }> {
    expect(defaultsText).toContain(from)
    const copy = join(dir, `defaults-${Math.random().toString(36).slice(2)}.ts`)
    await writeFile(copy, defaultsText.replace(from, to))
    return check('--defaults', copy, '--page', PAGE)
  }

  it('agrees with src/config/defaults.ts (run npm run docs:config after changing a default)', () => {
    const { status, out } = check()
    expect(out).toContain('agrees with')
    expect(status).toBe(0)
  })

  it('shows every option with its path, its value with the unit its name gives, and its comment', () => {
    expect(pageText).toContain('- **`authServer.ttl.accessToken`** = 3,600 s (1 h). JWT access tokens:')
    expect(pageText).toContain('- **`protocol.requestTimeoutMs`** = 60,000 ms (1 min). Timeout in ms')
    expect(pageText).toContain('- **`streamableHttp.maxBodyBytes`** = 4,194,304 bytes (4 MiB).')
    expect(pageText).toContain("- **`legacySse.ssePath`** = `'/sse'`.")
    expect(pageText).toMatch(/^### `authServer\.ttl`\n\nLifetimes in seconds\.$/m)
    for (const variable of ['MCP_AUTH_REDIS_URL', 'MCP_AUTH_DRAIN_DELAY', 'MCP_AUTH_CLIENT_SECRET', 'MCP_AUTH_PASSWORD', 'MCP_AUTH_DEMO_PASSWORD', '`PORT`']) {
      expect(pageText).toContain(variable)
    }
  })

  it('fails when a value in defaults.ts changed and the page did not, naming the option', async () => {
    const { status, out } = await checkAlteredDefaults('    requestTimeoutMs: 60_000,', '    requestTimeoutMs: 61_000,')
    expect(status).toBe(1)
    expect(out).toContain('disagrees with')
    expect(out).toContain('npm run docs:config')
    expect(out).toContain('+ - **`protocol.requestTimeoutMs`** = 61,000 ms (61 s).')
    expect(out).toContain('- - **`protocol.requestTimeoutMs`** = 60,000 ms (1 min).')
  })

  it('fails when a comment in defaults.ts changed and the page did not', async () => {
    const { status, out } = await checkAlteredDefaults('Path of the 2024-11-05 HTTP+SSE stream (GET).', 'Path of the legacy SSE stream (GET).')
    expect(status).toBe(1)
    expect(out).toContain('legacySse.ssePath')
  })

  it('fails when an option is added to defaults.ts without the page', async () => {
    const { status, out } = await checkAlteredDefaults('    maxPendingRequests: 10_000,\n', '    maxPendingRequests: 10_000,\n    /** A new option. */\n    newOptionMs: 5,\n')
    expect(status).toBe(1)
    expect(out).toContain('protocol.newOptionMs')
  })

  it('refuses an option without a doc comment, naming it', async () => {
    const { status, out } = await checkAlteredDefaults('    /** Path of the stateless JSON-only endpoint (POST only, application/json only, no sessions). */\n', '')
    expect(status).toBe(1)
    expect(out).toContain('no doc comment')
    expect(out).toContain('statelessJson.path')
  })

  it('fails when the page was edited by hand', async () => {
    const copy = join(dir, 'configuration.md')
    await writeFile(copy, pageText.replace('Items per page of tools/list', 'Items on each page of tools/list'))
    const { status, out } = check('--page', copy)
    expect(status).toBe(1)
    expect(out).toContain('server.pageSize')
  })

  it('fails when the page is missing', () => {
    const { status, out } = check('--page', join(dir, 'absent.md'))
    expect(status).toBe(1)
    expect(out).toContain('missing')
  })
})
