// Issue 33: `mcp-auth audit` reads the audit trail: the data directory's file (while a server
// could be writing it), a deployment's Redis stream, or a running server's admin API; text or
// JSON lines, filters, and --follow until Ctrl-C.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditEvent, StoredAuditEvent } from '../../src/observe/audit-event.js'
import { FileAuditTrail } from '../../src/observe/file-audit-trail.js'
import { RedisConnection } from '../../src/redis/connection.js'
import { RedisAuditTrail } from '../../src/redis/redis-audit-trail.js'
import { runCliLoggingIn } from '../helpers/cli-admin.js'
import { runCli } from '../helpers/cli-process.js'
import { CLI_PATH } from '../helpers/paths.js'
import { startProtectedStack, type ProtectedStack } from '../helpers/protected-stack.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

let dir: string
let sequence = 0
const hour = 3_600_000

function stored(event: Partial<AuditEvent> & { node?: string }, ago = 0): StoredAuditEvent {
  const at = Date.now() - ago
  return { id: `${at}-${sequence++}`, at: new Date(at).toISOString(), node: 'n1', type: 'sign-in.succeeded', result: 'success', ...event }
}

const EVENTS: Array<[Partial<AuditEvent>, number]> = [
  [{ type: 'sign-in.failed', result: 'failure', username: 'alice', reason: 'wrong password', addressGroup: '203.0.113.7', details: { factor: 'password' } }, 3 * hour],
  [{ type: 'sign-in.succeeded', username: 'alice', subject: 'sub-a', clientId: 'app-1' }, 2 * hour],
  [{ type: 'token.issued', subject: 'sub-a', clientId: 'app-1', resource: 'http://127.0.0.1/mcp', scopes: ['mcp', 'offline_access'] }, 30 * 60_000],
  [{ type: 'client.blocked', actor: { osUser: 'ops', channel: 'cli-local' }, clientId: 'app-2\u001b[2J' }, 10 * 60_000],
]

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-audit-cli-'))
  const trail = new FileAuditTrail({ dataDir: dir })
  for (const [event, ago] of EVENTS) trail.append(stored(event, ago))
  await trail.close()
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const types = (stdout: string): string[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('  ')[1]!)

describe('mcp-auth audit, the data directory', () => {
  it('prints one line per event, oldest of the selection first, terminal-safe', async () => {
    const { code, stdout, stderr } = await runCli(['audit', '--data-dir', dir])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(types(stdout)).toEqual(['sign-in.failed', 'sign-in.succeeded', 'token.issued', 'client.blocked'])
    const lines = stdout.split('\n')
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}sign-in\.failed {2}failure {2}user=alice {2}from=203\.0\.113\.7 {2}reason="wrong password" {2}factor=password$/)
    expect(lines[2]).toContain('scopes="mcp offline_access"')
    expect(lines[3]).toContain('by=os:ops  via=cli-local  client=app-2\ufffd[2J')
    expect(stdout).not.toContain('\u001b')
  })

  it('filters by user, client, type prefix, time and limit', async () => {
    expect(types((await runCli(['audit', '--data-dir', dir, '--user', 'alice'])).stdout)).toEqual(['sign-in.failed', 'sign-in.succeeded'])
    expect(types((await runCli(['audit', '--data-dir', dir, '--client', 'app-1'])).stdout)).toEqual(['sign-in.succeeded', 'token.issued'])
    expect(types((await runCli(['audit', '--data-dir', dir, '--type', 'sign-in.', '--type', 'client.blocked'])).stdout)).toEqual([
      'sign-in.failed',
      'sign-in.succeeded',
      'client.blocked',
    ])
    expect(types((await runCli(['audit', '--data-dir', dir, '--since', '1h'])).stdout)).toEqual(['token.issued', 'client.blocked'])
    expect(types((await runCli(['audit', '--data-dir', dir, '--until', '1h'])).stdout)).toEqual(['sign-in.failed', 'sign-in.succeeded'])
    expect(types((await runCli(['audit', '--data-dir', dir, '--limit', '1'])).stdout)).toEqual(['client.blocked'])
  })

  it('prints JSON lines in the admin API view with --json', async () => {
    const { stdout } = await runCli(['audit', '--data-dir', dir, '--json', '--type', 'client.blocked'])
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(events).toEqual([expect.objectContaining({ type: 'client.blocked', client_id: 'app-2\u001b[2J', actor: { os_user: 'ops', channel: 'cli-local' } })])
  })

  it('refuses a time it cannot read, and a login option without --server, as usage errors', async () => {
    for (const args of [
      ['--since', 'yesterday'],
      ['--limit', '0'],
      ['--type', 'Sign In'],
      ['--client-id', 'x'],
    ]) {
      const { code, stderr } = await runCli(['audit', '--data-dir', dir, ...args])
      expect(code, args.join(' ')).toBe(2)
      expect(stderr).toMatch(/^mcp-auth audit: /)
    }
  })

  it('follows new events until Ctrl-C, then exits 130', async () => {
    const child = spawn(process.execPath, [CLI_PATH, 'audit', '--data-dir', dir, '--follow', '--type', 'token.'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
    // the backlog (the last matching events), then the new ones
    await expect.poll(() => types(stdout), { timeout: 10_000 }).toEqual(['token.issued'])
    const writer = new FileAuditTrail({ dataDir: dir })
    writer.append(stored({ type: 'token.issued', subject: 'sub-new', clientId: 'app-3' }))
    writer.append(stored({ type: 'sign-in.succeeded', username: 'not-followed' }))
    await writer.close()
    await expect.poll(() => stdout, { timeout: 10_000 }).toContain('client=app-3')
    child.kill('SIGINT')
    expect(await exited).toBe(130)
    expect(stdout).not.toContain('not-followed')
  })
})

describe('mcp-auth audit --redis', () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(() => redis.close())

  it("reads the deployment's stream, every node's events", async () => {
    const nodes = await Promise.all([1, 2].map(() => RedisConnection.connect({ url: redis.url, prefix: 'audit-cli:' })))
    try {
      const first = new RedisAuditTrail(nodes[0]!)
      first.append(stored({ type: 'sign-in.failed', result: 'failure', username: 'alice', node: 'node-a' }))
      await first.flushed()
      const second = new RedisAuditTrail(nodes[1]!)
      second.append(stored({ type: 'token.issued', subject: 'sub-a', node: 'node-b' }))
      await second.flushed()
    } finally {
      await Promise.all(nodes.map((node) => node.close()))
    }
    const { code, stdout, stderr } = await runCli(['audit', '--redis', redis.url, '--redis-prefix', 'audit-cli:', '--data-dir', dir, '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).node),
    ).toEqual(['node-a', 'node-b'])
  })
})

describe('mcp-auth audit --server', () => {
  const root = { username: 'root', password: 'root password 1' }
  let stack: ProtectedStack
  beforeAll(async () => {
    stack = await startProtectedStack()
    await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
    stack.as.observer.audit({ type: 'account.created', result: 'success', actor: { username: 'root', channel: 'admin-api' }, username: 'carol' })
    stack.as.observer.audit({ type: 'sign-in.failed', result: 'failure', username: 'carol', reason: 'wrong password' })
    await stack.as.observer.trail!.flushed()
  })
  afterAll(() => stack.stop())

  it("reads a running server's trail through its admin API", async () => {
    const run = await runCliLoggingIn(['audit', '--user', 'carol', '--server', stack.origin, '--no-browser', '--store', join(dir, 'tokens.json')], root)
    expect(run.code, run.stderr).toBe(0)
    expect(types(run.stdout)).toEqual(['account.created', 'sign-in.failed'])
    expect(run.stdout).toContain('by=root  via=admin-api  user=carol')
  })

  it('follows through the admin API until Ctrl-C, each new event once (the login kept from before)', async () => {
    const args = ['audit', '--follow', '--type', 'account.', '--server', stack.origin, '--no-browser', '--store', join(dir, 'tokens.json')]
    const child = spawn(process.execPath, [CLI_PATH, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
    await expect.poll(() => types(stdout), { timeout: 10_000 }).toEqual(['account.created'])
    stack.as.observer.audit({ type: 'account.disabled', result: 'success', actor: { username: 'root', channel: 'console' }, username: 'carol' })
    stack.as.observer.audit({ type: 'sign-in.succeeded', result: 'success', username: 'not-followed' })
    await expect.poll(() => types(stdout), { timeout: 10_000 }).toEqual(['account.created', 'account.disabled'])
    // another poll goes by: nothing is printed twice
    await new Promise((resolve) => setTimeout(resolve, 2500))
    child.kill('SIGINT')
    expect(await exited, stderr).toBe(130)
    expect(types(stdout)).toEqual(['account.created', 'account.disabled'])
  })
})
