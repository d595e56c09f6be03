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
/** An administrator's command on one client: a generated client id may begin with `-`, so it comes after `--`. */
const asAdminOn = (args: string[], clientId: string) =>
  runCliLoggingIn([...args, '--server', origin, '--no-browser', '--store', join(dir, 'admin-tokens.json'), '--', clientId], root)
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

  it('revokes the account’s grant with grants revoke --server; its client needs a new login', async () => {
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

  it('registers, lists, blocks, unblocks and removes a client with clients … --server', async () => {
    const added = await asAdmin(['clients', 'add', '--name', 'batch job', '--grant-type', 'client_credentials'])
    expect(added.code, added.stderr).toBe(0)
    const clientId = /client_id: (\S+)/.exec(added.stdout)![1]!
    const secret = /client_secret: (\S+)/.exec(added.stdout)![1]!
    const token = async (): Promise<number> =>
      (
        await fetch(`${origin}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
          body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${origin}/mcp` }),
        })
      ).status
    expect(await token()).toBe(200)
    const listed = await asAdmin(['clients', 'list'])
    expect(listed.stdout).toContain(clientId)
    expect((await asAdminOn(['clients', 'block'], clientId)).code).toBe(0)
    expect(await token()).toBe(400)
    expect((await asAdmin(['clients', 'list', '--blocked'])).stdout).toContain(clientId)
    expect((await asAdminOn(['clients', 'unblock'], clientId)).code).toBe(0)
    expect(await token()).toBe(200)
    const removed = await asAdminOn(['clients', 'remove'], clientId)
    expect(removed.code, removed.stderr).toBe(0)
    expect(await token()).toBe(401)
  }, 60_000)

  it('adds, lists and removes a resource with resources … --server, served at once', async () => {
    const uri = 'http://127.0.0.1:9/tools/mcp'
    const added = await asAdmin(['resources', 'add', uri, '--scopes', 'mcp tools:write', '--name', 'Tools'])
    expect(added.code, added.stderr).toBe(0)
    expect((await asAdmin(['resources', 'list'])).stdout).toContain(uri)
    // the running server issues tokens for it at once (a scope name no resource offered at the
    // start is registrable from the next start: docs/deployment.md)
    const machine = await asAdmin(['clients', 'add', '--name', 'tools job', '--grant-type', 'client_credentials', '--scope', 'mcp'])
    expect(machine.code, machine.stderr).toBe(0)
    const [clientId, secret] = [/client_id: (\S+)/.exec(machine.stdout)![1]!, /client_secret: (\S+)/.exec(machine.stdout)![1]!]
    const token = async (): Promise<{ status: number; body: Record<string, unknown> }> => {
      const response = await fetch(`${origin}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: uri, scope: 'mcp' }),
      })
      return { status: response.status, body: (await response.json()) as Record<string, unknown> }
    }
    const issued = await token()
    expect(issued.status, JSON.stringify(issued.body)).toBe(200)
    expect(issued.body['scope']).toBe('mcp')
    const removed = await asAdmin(['resources', 'remove', uri])
    expect(removed.code, removed.stderr).toBe(0)
    expect((await asAdmin(['resources', 'list'])).stdout).not.toContain(uri)
    expect((await token()).body['error']).toBe('invalid_target')
  }, 60_000)
})
