/**
 * The official MCP conformance suite in client mode: every client scenario of
 * `@modelcontextprotocol/conformance`, one at a time, against our conformance client
 * (test/conformance/conformance-client.mjs: our McpClient, HTTP transport and login helper),
 * with no expected-failures baseline. The scenario list is read from the package.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SHIM = fileURLToPath(new URL('./fs-glob-sync-shim.mjs', import.meta.url))
const CLIENT = fileURLToPath(new URL('./conformance-client.mjs', import.meta.url))
const CONFORMANCE = join(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'), '..', 'dist', 'index.js')

function clientScenarios(): string[] {
  const listed = spawnSync(process.execPath, ['--import', SHIM, CONFORMANCE, 'list'], { encoding: 'utf8' })
  const section = listed.stdout.split('Client scenarios')[1] ?? ''
  return [...section.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]!)
}

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', SHIM, CONFORMANCE, 'client', '--command', `"${process.execPath}" "${CLIENT}"`, '--scenario', scenario, '--timeout', '20000'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('close', (code) => resolve({ code, output }))
  })
}

const scenarios = clientScenarios()

describe('conformance client scenarios', () => {
  it('lists every client scenario of the suite (26 in 0.1.16)', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(26)
  })

  it.each(scenarios)('passes %s', async (scenario) => {
    const { code, output } = await runScenario(scenario)
    expect(output, output).toMatch(/OVERALL: PASSED/)
    expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/)
    expect(code, output).toBe(0)
  }, 60_000)
})
