/**
 * The official MCP conformance suite in client mode: every client scenario in
 * `@modelcontextprotocol/conformance` that is not an extension (2025-03-26 … 2026-07-28), one at
 * a time, against our conformance client (test/conformance/conformance-client.mjs: our McpClient,
 * HTTP transport and login helper), with no expected-failures baseline. The scenario list is
 * read from the package; the extension scenarios we implement (DPoP, the JWT bearer grant) run too.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SHIM = fileURLToPath(new URL('./fs-glob-sync-shim.mjs', import.meta.url))
const CLIENT = fileURLToPath(new URL('./conformance-client.mjs', import.meta.url))
const CONFORMANCE = join(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'), '..', 'dist', 'index.js')

/** The client scenarios `list --client` tags with a revision (extensions are tagged `extension`). */
function clientScenarios(): string[] {
  const listed = spawnSync(process.execPath, ['--import', SHIM, CONFORMANCE, 'list', '--client'], { encoding: 'utf8' })
  return [...listed.stdout.matchAll(/^\s+- (\S+) \[([^\]]+)\]/gm)].filter((match) => match[2]!.split(',').some((tag) => /^\d{4}-\d{2}-\d{2}$/.test(tag))).map((match) => match[1]!)
}

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', SHIM, CONFORMANCE, 'client', '--command', `"${process.execPath}" "${CLIENT}"`, '--scenario', scenario, '--timeout', '20000'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('close', (code) => resolve({ code, output }))
  })
}

/**
 * Extension scenarios we implement (issue 17): DPoP (SEP-1932) with and without server nonces,
 * and workload identity federation's JWT bearer grant (SEP-1933).
 */
const EXTENSIONS = ['auth/dpop', 'auth/dpop-nonce', 'auth/wif-jwt-bearer']

const scenarios = clientScenarios()

describe('conformance client scenarios', () => {
  it('lists every client scenario of the suite that is not an extension (38 in 0.2.0-alpha.12)', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(38)
    expect(scenarios).toContain('auth/metadata-var2')
    expect(scenarios).toContain('sep-2322-client-request-state')
    expect(scenarios).not.toContain('auth/dpop')
  })

  it('lists the extension scenarios we run beside them', () => {
    const listed = spawnSync(process.execPath, ['--import', SHIM, CONFORMANCE, 'list', '--client'], { encoding: 'utf8' }).stdout
    for (const scenario of EXTENSIONS) expect(listed).toContain(`- ${scenario} [`)
  })

  it.each([...scenarios, ...EXTENSIONS])(
    'passes %s',
    async (scenario) => {
      const { code, output } = await runScenario(scenario)
      expect(output, output).toMatch(/OVERALL: PASSED/)
      expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/)
      expect(code, output).toBe(0)
    },
    60_000,
  )
})
