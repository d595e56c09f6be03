// issue 32: how `--server URL` logs in: a machine administrator without a browser, and a new
// sign-in (RFC 9470 max_age) when the one held is too old for a sensitive action
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCliLoggingIn } from '../helpers/cli-admin.js'
import { startProtectedStack, type ProtectedStack } from '../helpers/protected-stack.js'

const root = { username: 'root', password: 'root password 1' }
const SENSITIVE_AGE = 2
let stack: ProtectedStack
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-admin-login-'))
  stack = await startProtectedStack({ as: { admin: { sensitiveLoginAgeSeconds: SENSITIVE_AGE } } })
  await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  await stack.as.accounts.setUser('bob', 'bob password 1')
})
afterAll(async () => {
  await stack?.stop()
  await rm(dir, { recursive: true, force: true })
})

describe('mcp-auth users --server URL: logging in', () => {
  it('signs in again, with max_age, when the sign-in held is too old for a sensitive action', async () => {
    const store = join(dir, 'root.json')
    const run = (args: string[]) => runCliLoggingIn(['users', ...args, '--server', stack.origin, '--no-browser', '--store', store], root)
    expect((await run(['list'])).logins).toHaveLength(1)
    await sleep((SENSITIVE_AGE + 1) * 1000)
    // an ordinary action takes the sign-in held
    expect((await run(['set-scopes', 'bob', 'mcp'])).logins).toHaveLength(0)
    const promoted = await run(['set-role', 'bob', 'admin'])
    expect(promoted.code, promoted.stderr).toBe(0)
    expect(promoted.logins).toHaveLength(1)
    expect(promoted.logins[0]!.searchParams.get('max_age')).toBe(String(SENSITIVE_AGE))
    expect(promoted.stdout).toBe('account bob is an administrator\n')
  }, 30_000)

  it('acts as a machine administrator (client credentials, no browser) with --client-id and a secret file', async () => {
    const robot = await stack.as.addClient({
      client_name: 'admin robot',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'mcp-auth:admin',
    })
    const secretFile = join(dir, 'robot-secret')
    await writeFile(secretFile, `${robot.client_secret}\n`, { mode: 0o600 })
    const listed = await runCliLoggingIn([
      'users',
      'list',
      '--server',
      stack.origin,
      '--store',
      join(dir, 'robot.json'),
      '--client-id',
      robot.client_id,
      '--client-secret-file',
      secretFile,
      '--client-credentials',
    ])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.logins).toHaveLength(0)
    expect(listed.stdout).toMatch(/^root\t\S+\t\(default scopes\)\tadmin$/m)
  }, 30_000)

  it('refuses a machine client without the admin scope, in one line', async () => {
    const plain = await stack.as.addClient({
      client_name: 'plain robot',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
    })
    const refused = await runCliLoggingIn(
      ['users', 'list', '--server', stack.origin, '--store', join(dir, 'plain.json'), '--client-id', plain.client_id, '--client-credentials'],
      undefined,
      { env: { MCP_AUTH_CLIENT_SECRET: plain.client_secret! } },
    )
    expect(refused.code).toBe(1)
    expect(refused.logins).toHaveLength(0)
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stderr).toBe('mcp-auth users: listing the accounts: this endpoint needs the scope mcp-auth:admin (403 forbidden)\n')
  }, 30_000)
})
