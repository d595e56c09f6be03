// issue 32: `mcp-auth users … --server URL` acts on a running server through its admin API
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
let store: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-users-api-'))
  store = join(dir, 'tokens.json')
  stack = await startProtectedStack()
  await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  await stack.as.accounts.setUser('bob', 'bob password 1')
})
afterAll(async () => {
  await stack?.stop()
  await rm(dir, { recursive: true, force: true })
})

/** `mcp-auth users <args> --server <origin>` with the test's token store, signing in as root when asked. */
const users = (args: string[], options: { input?: string; env?: Record<string, string>; store?: string; who?: { username: string; password: string } } = {}) =>
  runCliLoggingIn(['users', ...args, '--server', stack.origin, '--no-browser', '--store', options.store ?? store], options.who ?? root, options)

describe('mcp-auth users --server URL', () => {
  it('logs in as an administrator once, adds an account (an administrator with --admin) and lists it with its role', async () => {
    const added = await users(['add', 'alice', '--password-stdin', '--name', 'Alice', '--scopes', 'mcp'], { input: 'alice password 1\n' })
    expect(added.stderr).toContain(`logged in to ${stack.origin}`)
    expect(added.logins).toHaveLength(1)
    expect(added.logins[0]!.searchParams.get('resource')).toBe(`${stack.origin}/admin/api`)
    expect(added.code).toBe(0)
    const alice = await stack.as.accounts.findByUsername('alice')
    expect(added.stdout).toBe(`account alice (${alice!.id}) saved\n`)
    expect(alice?.scopes).toEqual(['mcp'])

    const admin = await users(['add', 'erin', '--admin'])
    expect(admin.logins).toHaveLength(0) // the stored token
    expect(admin.code).toBe(0)
    expect(admin.stdout).toMatch(/^account erin \(\S+\) saved\npassword: \S{16}\n\(shown once; it is stored only as a hash\)\n$/)
    expect((await stack.as.accounts.findByUsername('erin'))?.role).toBe('admin')

    const listed = await users(['list'])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain(`alice\t${alice!.id}\tmcp\n`)
    expect(listed.stdout).toMatch(/^erin\t\S+\t\(default scopes\)\tadmin$/m)
    expect(listed.stdout).toMatch(/^root\t\S+\t\(default scopes\)\tadmin$/m)
  }, 60_000)

  it('sets scopes and role, disables, enables and deletes, printing what the local mode prints', async () => {
    expect((await users(['set-scopes', 'bob', 'mcp mcp:admin'])).stdout).toBe('account bob may be granted: mcp mcp:admin\n')
    expect((await users(['set-scopes', 'bob', '--default'])).stdout).toBe('account bob may be granted: (default scopes)\n')
    expect((await users(['set-role', 'bob', 'admin'])).stdout).toBe('account bob is an administrator\n')
    expect((await users(['set-role', 'bob', 'user'])).stdout).toBe('account bob is not an administrator (role user)\n')
    expect((await users(['disable', 'bob'])).stdout).toBe('account bob disabled; 0 grants ended\n')
    expect((await stack.as.accounts.findByUsername('bob'))?.disabled).toBe(true)
    expect((await users(['enable', 'bob'])).stdout).toBe('account bob enabled\n')
    const deleted = await users(['delete', 'bob'])
    expect(deleted.stdout).toBe('account bob deleted; 0 grants ended\n')
    expect(await stack.as.accounts.findByUsername('bob')).toBeUndefined()
  }, 60_000)

  it('prints a one-time set-password link', async () => {
    await stack.as.accounts.setUser('frank', 'frank password 1')
    const link = await users(['password-link', 'frank'])
    expect(link.code).toBe(0)
    expect(link.stdout).toMatch(
      new RegExp(`^set-password link for frank \\(one use, until \\S+Z; earlier links of the account no longer work\\):\\n${stack.origin}/admin/password/\\S+\\n$`),
    )
  }, 30_000)

  it('says in one line what the server refused, and exits 1', async () => {
    const missing = await users(['delete', 'nobody'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('mcp-auth users: deleting nobody: no account named nobody (404 not-found)\n')
    const demo = await users(['set-role', 'demo', 'admin'])
    expect(demo.code).toBe(1)
    expect(demo.stderr).toMatch(/^mcp-auth users: changing the role of demo: the demo account \(demo\) is never an administrator.*\(403 forbidden\)\n$/)
    const exists = await users(['add', 'root'])
    expect(exists.code).toBe(1)
    expect(exists.stderr).toContain(`mcp-auth users password-link root --server ${stack.origin}`)
    expect(exists.stdout).toBe('')
  }, 30_000)

  it('refuses an account that is not an administrator after its login, saying so', async () => {
    const other = join(dir, 'not-admin.json')
    const refused = await users(['list'], { store: other, who: { username: 'demo', password: 'demo password 1' } })
    expect(refused.code).toBe(1)
    expect(refused.logins).toHaveLength(1)
    expect(refused.stderr).toContain(`may not administer ${stack.origin}: sign in as an administrator`)
    expect(refused.stdout).toBe('')
  }, 30_000)

  it('takes --server only with an http URL on loopback or https, and not with the local options (exit 2)', async () => {
    const plain = await runCli(['users', 'list', '--server', 'http://example.com'])
    expect(plain.code).toBe(2)
    expect(plain.stderr).toContain('--server: the authorization server is reached over https')
    const mixed = await runCli(['users', 'list', '--server', stack.origin, '--data-dir', dir])
    expect(mixed.code).toBe(2)
    expect(mixed.stderr).toContain('--server acts through the running server: --data-dir is for the local modes')
    const loginOnly = await runCli(['users', 'list', '--no-browser', '--data-dir', dir])
    expect(loginOnly.code).toBe(2)
    expect(loginOnly.stderr).toContain('--no-browser is a login option: it goes with --server URL')
  })

  it('in the local mode, refuses the data directory of a running server and says to add --server', async () => {
    const local = await runCli(['users', 'list', '--data-dir', stack.dataDir])
    expect(local.code).toBe(1)
    expect(local.stderr).toMatch(/^mcp-auth users: the server is running: add --server URL \(or stop it\)\. /)
  })
})
