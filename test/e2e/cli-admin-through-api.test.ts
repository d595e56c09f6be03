// issue 32, the CLI e2e: `users add --server` and `grants revoke --server` against a running
// `mcp-auth start` (a real child process); the revoked grant's client then needs a new login.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCliLoggingIn } from '../helpers/cli-admin.js'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'

const root = { username: 'root', password: 'root password 1' }
const carol = { username: 'carol', password: 'carol password 1' }
let server: ChildProcess
let origin: string
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-admin-e2e-'))
  const dataDir = join(dir, 'server')
  // the first administrator: on the data directory, before the first start
  const first = await runCli(['users', 'add', root.username, '--admin', '--password-stdin', '--data-dir', dataDir], { input: `${root.password}\n` })
  expect(first.code).toBe(0)
  const started = await startCli(['start', '--port', '0', '--data-dir', dataDir], { env: { MCP_AUTH_DEMO_PASSWORD: 'demo password 1' } })
  server = started.child
  origin = new URL(started.url).origin
}, 30_000)
afterAll(async () => {
  if (server) await stopChild(server)
  await rm(dir, { recursive: true, force: true })
})

const asAdmin = (args: string[], options: { input?: string } = {}) =>
  runCliLoggingIn([...args, '--server', origin, '--no-browser', '--store', join(dir, 'admin-tokens.json')], root, options)
const carolStore = (): string => join(dir, 'carol-tokens.json')

describe('the CLI through the admin API of mcp-auth start', () => {
  it('adds an account with users add --server while the server runs, and the account logs in', async () => {
    const refusedLocally = await runCli(['users', 'list', '--data-dir', join(dir, 'server')])
    expect(refusedLocally.code).toBe(1)
    expect(refusedLocally.stderr).toContain('the server is running: add --server URL (or stop it)')

    const added = await asAdmin(['users', 'add', carol.username, '--password-stdin'], { input: `${carol.password}\n` })
    expect(added.code, added.stderr).toBe(0)
    expect(added.logins).toHaveLength(1)
    expect(added.stdout).toMatch(/^account carol \(\S+\) saved\n$/)
    const listed = await asAdmin(['users', 'list'])
    expect(listed.logins).toHaveLength(0)
    expect(listed.stdout).toMatch(/^carol\t/m)
    expect(listed.stdout).toMatch(/^root\t\S+\t\(default scopes\)\tadmin$/m)

    const login = await runCliLoggingIn(['login', `${origin}/mcp`, '--no-browser', '--store', carolStore()], carol)
    expect(login.code, login.stderr).toBe(0)
    const tools = await runCliLoggingIn(['tools', `${origin}/mcp`, '--store', carolStore(), '--no-browser'])
    expect(tools.logins).toHaveLength(0)
    expect(tools.code).toBe(0)
  }, 60_000)

  it('revokes the account’s grant with grants revoke --server; its client needs a new login', async (context) => {
    const document = (await (await fetch(`${origin}/admin/api/openapi.json`)).json()) as { paths: Record<string, unknown> }
    // the grants operations are another part of issue 32: this runs once they are merged
    if (!('/grants/{grant_id}' in document.paths)) context.skip()

    const grants = await asAdmin(['grants', 'list', '--user', carol.username])
    expect(grants.code, grants.stderr).toBe(0)
    const lines = grants.stdout.trim().split('\n')
    expect(lines).toHaveLength(1)
    const grantId = lines[0]!.split('\t')[0]!
    const revoked = await asAdmin(['grants', 'revoke', grantId])
    expect(revoked.stdout).toBe(`grant ${grantId} ended\n`)

    // no `who`: the CLI's login URL is not answered, the command is ended and its login recorded
    const after = await runCliLoggingIn(['tools', `${origin}/mcp`, '--store', carolStore(), '--no-browser'])
    expect(after.logins).toHaveLength(1)
    expect(after.code).not.toBe(0)
  }, 60_000)

  it('disables and enables the account with users disable|enable --server: its grants end, its client needs a new login', async () => {
    // a grant to end (the one before may have been revoked above)
    expect((await runCliLoggingIn(['login', `${origin}/mcp`, '--no-browser', '--store', carolStore()], carol)).code).toBe(0)
    const disabled = await asAdmin(['users', 'disable', carol.username])
    expect(disabled.stdout).toBe('account carol disabled; 1 grant ended\n')
    expect((await asAdmin(['users', 'enable', carol.username])).stdout).toBe('account carol enabled\n')
    const after = await runCliLoggingIn(['tools', `${origin}/mcp`, '--store', carolStore(), '--no-browser'])
    expect(after.logins).toHaveLength(1)
    expect(after.code).not.toBe(0)
  }, 60_000)
})
