/**
 * Issue 28, item 17: loading the authorization server prints nothing of its own on Node 20 (no
 * oidc-provider "Unsupported runtime" warning per process), and every other warning still passes.
 */
import { spawn } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../../helpers/paths.js'

function runModule(source: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('close', (code) => resolve({ code, stderr }))
  })
}

describe('loading the authorization server', () => {
  it("drops only oidc-provider's Unsupported runtime warning: a later console.warn still prints", async () => {
    const built = pathToFileURL(`${REPO_ROOT}dist/auth/server/create-authorization-server.js`).href
    const run = await runModule(`await import(${JSON.stringify(built)}); console.warn('a warning of the application')`)
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('a warning of the application\n')
  })
})
