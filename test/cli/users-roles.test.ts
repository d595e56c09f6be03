// issue 32: roles in the local mode (a stopped server's data directory): add --admin, set-role, list
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli-process.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-users-roles-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const users = (args: string[], input = '') => runCli(['users', ...args, '--data-dir', dir], { input })

describe('mcp-auth users: roles on a data directory', () => {
  it('makes the first administrator with add --admin, shows the role in list, and keeps the last one', async () => {
    const added = await users(['add', 'root', '--admin', '--password-stdin'], 'root password 1\n')
    expect(added.code).toBe(0)
    expect((await users(['add', 'bob', '--password-stdin'], 'bob password 1\n')).code).toBe(0)
    const listed = await users(['list'])
    expect(listed.stdout).toMatch(/^root\t\S+\t\(default scopes\)\tadmin$/m)
    expect(listed.stdout).toMatch(/^bob\t\S+\t\(default scopes\)$/m)

    const last = await users(['set-role', 'root', 'user'])
    expect(last.code).toBe(1)
    expect(last.stderr).toContain('root is the last active administrator')
    expect((await users(['set-role', 'bob', 'admin'])).stdout).toBe('account bob is an administrator\n')
    expect((await users(['set-role', 'root', 'user'])).stdout).toBe('account root is not an administrator (role user)\n')
    expect((await users(['list'])).stdout).toMatch(/^root\t\S+\t\(default scopes\)$/m)
  }, 30_000)

  it('never makes the demo account an administrator', async () => {
    const demo = await users(['add', 'demo', '--admin'])
    expect(demo.code).toBe(1)
    expect(demo.stderr).toContain('the demo account (demo) is never an administrator')
    expect((await users(['set-role', 'x', 'boss'])).code).toBe(2)
    const link = await users(['password-link', 'x'])
    expect(link.code).toBe(2)
    expect(link.stderr).toContain("'password-link' makes a link to the running server's page: add --server URL")
  })
})
