/**
 * Issue 29, item 6: the layering rules of .dependency-cruiser.cjs, checked by `npm run lint:layers`,
 * pass on today's tree with no exceptions (no list of known violations, no `--ignore-known`) and
 * fail on a violation of each rule the acceptance names (and on a new type-only circle).
 */
import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/paths.js'

const run = promisify(execFile)
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'

interface Outcome {
  code: number
  output: string
}

/** `npm run lint:layers` in `cwd`, as CI runs it: the script of package.json, not a copy of its arguments. */
async function lintLayers(cwd: string): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(NPM, ['run', '--silent', 'lint:layers'], { cwd, timeout: 60_000 })
    return { code: 0, output: stdout + stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }
  }
}

interface Violation {
  from: string
  to: string
  rule: { name: string }
}

/** Each test runs dependency-cruiser over src/ (about 2 s alone): room for a loaded machine. */
const SLOW = { timeout: 90_000 }

const key = (violation: Violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`

describe('the layering check (npm run lint:layers)', () => {
  let copy: string

  beforeAll(() => {
    // A copy of the project's rule file, scripts and src/, so new violations can be
    // planted without touching the working tree other tests and builds read.
    copy = mkdtempSync(join(tmpdir(), 'mcp-auth-layering-'))
    for (const file of ['.dependency-cruiser.cjs', 'package.json', 'tsconfig.json']) cpSync(join(REPO_ROOT, file), join(copy, file))
    cpSync(join(REPO_ROOT, 'src'), join(copy, 'src'), { recursive: true })
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir')
  })

  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true })
  })

  it('passes on the tree as it is', SLOW, async () => {
    const outcome = await lintLayers(REPO_ROOT)
    expect(outcome.output).toContain('no dependency violations found')
    expect(outcome.output).not.toContain('known violations ignored')
    expect(outcome.code).toBe(0)
  })

  it('admits no exceptions: no list of known violations, every violation of the tree counts', SLOW, async () => {
    const script = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['lint:layers']
    expect(script).not.toMatch(/--ignore-known|--known-violations/)
    expect(existsSync(join(REPO_ROOT, '.dependency-cruiser-known-violations.json'))).toBe(false)
    const { stdout } = await run(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'baseline'],
      { cwd: REPO_ROOT, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
    )
    expect((JSON.parse(stdout) as Violation[]).map(key)).toEqual([])
  })

  it('fails on a new violation of each rule the acceptance names, and on a new type-only circle', SLOW, async () => {
    const plant = (path: string, text: string) => writeFileSync(join(copy, 'src', path), text)
    plant('transports/layering-probe-server.ts', "export { McpServer } from '../server/index.js'\n")
    plant('transports/layering-probe-storage.ts', "export type * from '../storage/types.js'\n")
    plant('server/layering-probe-storage.ts', "export type * from '../storage/types.js'\n")
    plant('auth/server/layering-probe-app.ts', "export * from '../../app/main-job.js'\n")
    plant('auth/resource/layering-probe-oidc.ts', "export type { Provider } from 'oidc-provider'\n")
    plant('jsonrpc/layering-probe-circle-a.ts', "import type { B } from './layering-probe-circle-b.js'\nexport type A = { b?: B }\n")
    plant('jsonrpc/layering-probe-circle-b.ts', "import type { A } from './layering-probe-circle-a.js'\nexport type B = { a?: A }\n")

    const outcome = await lintLayers(copy)
    expect(outcome.code).not.toBe(0)
    for (const [rule, from] of [
      ['transports-not-to-server', 'src/transports/layering-probe-server.ts'],
      ['transports-not-to-storage', 'src/transports/layering-probe-storage.ts'],
      ['server-not-to-storage', 'src/server/layering-probe-storage.ts'],
      ['auth-server-not-to-app', 'src/auth/server/layering-probe-app.ts'],
      ['auth-resource-not-to-oidc-provider', 'src/auth/resource/layering-probe-oidc.ts'],
      ['no-circular', 'src/jsonrpc/layering-probe-circle-a.ts'],
    ]) {
      expect(outcome.output).toMatch(new RegExp(`error ${rule}: ${from!.replaceAll('.', '\\.')} →`))
    }
    // Only the planted files break a rule: today's tree breaks none.
    const flagged = outcome.output.split('\n').filter((line) => /^\s*error /.test(line))
    expect(flagged.filter((line) => !line.includes('layering-probe-'))).toEqual([])
  })
})
