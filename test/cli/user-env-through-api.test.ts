// issue 32: `mcp-auth user-env … --server URL` sets, lists and unsets an account's values on a running server
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCliLoggingIn } from '../helpers/cli-admin.js'
import { runCli } from '../helpers/cli-process.js'
import { startProtectedStack, type ProtectedStack } from '../helpers/protected-stack.js'

const root = { username: 'root', password: 'root password 1' }
let stack: ProtectedStack
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-user-env-api-'))
  stack = await startProtectedStack()
  await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  await stack.as.accounts.setUser('alice', 'alice password 1')
})
afterAll(async () => {
  await stack?.stop()
  await rm(dir, { recursive: true, force: true })
})

const userEnv = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
  runCliLoggingIn(['user-env', ...args, '--server', stack.origin, '--no-browser', '--store', join(dir, 'tokens.json')], root, options)

describe('mcp-auth user-env --server URL', () => {
  it('sets a value from stdin, lists its name (never the value) and unsets it', async () => {
    const alice = (await stack.as.accounts.findByUsername('alice'))!
    const set = await userEnv(['set', 'alice', 'API_KEY', '--value-stdin'], { input: 'secret-1\n' })
    expect(set.code).toBe(0)
    expect(set.stdout).toBe(`API_KEY set for alice (${alice.id})\n`)
    expect(await stack.as.accountValues.valuesFor(alice.id)).toEqual({ API_KEY: 'secret-1' })

    const listed = await userEnv(['list', 'alice'])
    expect(listed.stdout).toMatch(/^API_KEY\tset \d{4}-\d\d-\d\dT\S+Z\n$/)
    expect(listed.stdout).not.toContain('secret-1')

    const unset = await userEnv(['unset', 'alice', 'API_KEY'])
    expect(unset.stdout).toBe(`API_KEY unset for alice (${alice.id})\n`)
    expect(await stack.as.accountValues.valuesFor(alice.id)).toEqual({})
  }, 60_000)

  it('says which account is missing, and takes no --subject', async () => {
    const missing = await userEnv(['set', 'nobody', 'API_KEY'], { env: { MCP_AUTH_VALUE: 'x' } })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('mcp-auth user-env: the account nobody: no account named nobody (404 not-found)')
    const subject = await runCli(['user-env', 'list', '--subject', 'abc', '--server', stack.origin])
    expect(subject.code).toBe(2)
    expect(subject.stderr).toContain('--subject is for the local modes')
  }, 30_000)
})
