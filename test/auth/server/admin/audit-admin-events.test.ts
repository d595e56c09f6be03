/**
 * Issue 33 (events): every administration action is recorded once by the administration core,
 * naming who did it whichever way it came: the admin API's caller, the CLI's operating-system
 * user (its local-file mode, as a child process).
 */
import { rm } from 'node:fs/promises'
import { userInfo } from 'node:os'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AuditEvent, StoredAuditEvent } from '../../../../src/observe/audit-event.js'
import { Observer } from '../../../../src/observe/observer.js'
import { adminCall, adminToken } from '../../../helpers/admin-api.js'
import { startAuthServer } from '../../../helpers/auth-server.js'
import { runCli } from '../../../helpers/cli-process.js'
import { ConsoleVisitor } from '../../../helpers/console-browser.js'
import { authorizeWithForm } from '../../../helpers/form-login.js'
import { startProtectedStack, type ProtectedStack } from '../../../helpers/protected-stack.js'
import { startRedisServer } from '../../../helpers/redis-server.js'

const root = { username: 'root', password: 'root password 1' }
const events: StoredAuditEvent[] = []
let stack: ProtectedStack
let token: string
let rootId: string

beforeAll(async () => {
  const observer = new Observer()
  observer.addAuditObserver((event) => events.push(event))
  stack = await startProtectedStack({ as: { observer } })
  rootId = (await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')).id
  token = (await adminToken(stack.origin, root)).access_token
})
afterAll(() => stack.stop())
beforeEach(() => {
  events.length = 0
})

const ofType = (type: string) => events.filter((event) => event.type === type)
const byRoot = expect.objectContaining({ subject: expect.any(String), username: 'root', channel: 'admin-api' })

describe('administration events through the admin API', () => {
  it('records an account created, changed, disabled, enabled, made an administrator and deleted, once each, as the caller', async () => {
    expect((await adminCall(stack.origin, token, 'POST', '/accounts', { username: 'erin', password: 'erin password 1' })).status).toBe(201)
    const erin = (await stack.as.accounts.findByUsername('erin'))!
    expect(ofType('account.created')).toEqual([expect.objectContaining({ result: 'success', subject: erin.id, username: 'erin', actor: byRoot })])
    expect(ofType('account.created')[0]!.actor!.subject).toBe(rootId)
    expect(JSON.stringify(events)).not.toContain('erin password 1')

    await adminCall(stack.origin, token, 'PATCH', '/accounts/erin', { disabled: true })
    await adminCall(stack.origin, token, 'PATCH', '/accounts/erin', { disabled: false })
    await adminCall(stack.origin, token, 'PATCH', '/accounts/erin', { role: 'admin' })
    await adminCall(stack.origin, token, 'PATCH', '/accounts/erin', { scopes: ['mcp'] })
    expect(ofType('account.disabled')).toEqual([expect.objectContaining({ username: 'erin', actor: byRoot })])
    expect(ofType('account.enabled')).toEqual([expect.objectContaining({ username: 'erin', actor: byRoot })])
    expect(ofType('account.role-changed')).toEqual([expect.objectContaining({ username: 'erin', details: { from: 'user', to: 'admin' } })])
    expect(ofType('account.changed')).toEqual([expect.objectContaining({ username: 'erin', details: { fields: ['scopes'] } })])

    const link = await adminCall(stack.origin, token, 'POST', '/accounts/erin/password-link')
    expect(link.status).toBe(201)
    expect(ofType('account.password-link-created')).toEqual([expect.objectContaining({ username: 'erin', actor: byRoot })])
    // never the link: its token is in the URL
    expect(JSON.stringify(events)).not.toContain(new URL(link.body.url).pathname.split('/').pop()!)

    await adminCall(stack.origin, token, 'PATCH', '/accounts/erin', { role: 'user' })
    events.length = 0
    expect((await adminCall(stack.origin, token, 'DELETE', '/accounts/erin')).status).toBe(200)
    expect(ofType('account.deleted')).toEqual([expect.objectContaining({ subject: erin.id, username: 'erin', actor: byRoot })])
  })

  it('records a client registered, blocked, unblocked and removed, and the grants it ended', async () => {
    const added = await adminCall(stack.origin, token, 'POST', '/clients', {
      client_name: 'worker',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'mcp',
    })
    expect(added.status).toBe(201)
    const clientId = added.body.client.client_id as string
    expect(ofType('client.registered')).toEqual([
      expect.objectContaining({ clientId, scopes: ['mcp'], actor: byRoot, details: expect.objectContaining({ origin: 'administrator' }) }),
    ])
    expect(JSON.stringify(events)).not.toContain(added.body.client_secret)
    await adminCall(stack.origin, token, 'POST', `/clients/${encodeURIComponent(clientId)}/block`)
    await adminCall(stack.origin, token, 'POST', `/clients/${encodeURIComponent(clientId)}/block`)
    await adminCall(stack.origin, token, 'DELETE', `/clients/${encodeURIComponent(clientId)}/block`)
    await adminCall(stack.origin, token, 'DELETE', `/clients/${encodeURIComponent(clientId)}`)
    expect(events.map((event) => event.type)).toEqual(['client.registered', 'client.blocked', 'client.unblocked', 'client.removed'])
    for (const event of events) expect(event.actor).toEqual(byRoot)
  })

  it('records a resource added, changed and removed, and the keys rotated', async () => {
    const uri = `${stack.origin}/tools`
    const created = await adminCall(stack.origin, token, 'POST', '/resources', { uri, scopes: ['tools:read'] })
    expect(created.status).toBe(201)
    const path = `/resources/${created.body.id}`
    const changed = await adminCall(stack.origin, token, 'PUT', path, { scopes: ['tools:read', 'tools:write'] }, { 'if-match': created.headers.get('etag')! })
    expect(changed.status).toBe(200)
    await adminCall(stack.origin, token, 'DELETE', path, undefined, { 'if-match': changed.headers.get('etag')! })
    expect(events.map((event) => [event.type, event.resource])).toEqual([
      ['resource.added', uri],
      ['resource.changed', uri],
      ['resource.removed', uri],
    ])
    events.length = 0
    expect((await adminCall(stack.origin, token, 'POST', '/keys/rotate')).status).toBe(200)
    expect(ofType('keys.rotated')).toEqual([expect.objectContaining({ result: 'success', actor: byRoot })])
  })
})

describe('administration events through the console', () => {
  it('names the administrator of the console, and the person who ended their own grant', async () => {
    const rootBrowser = new ConsoleVisitor(stack.origin, root)
    const created = await rootBrowser.submit('/admin/accounts', 'create', { username: 'gus', password: 'gus password 1' })
    expect(created.status).toBe(200)
    const disabled = await rootBrowser.submit('/admin/accounts/gus', 'disable')
    expect(disabled.status).toBe(200)
    const byConsole = expect.objectContaining({ subject: rootId, username: 'root', channel: 'console' })
    expect(ofType('account.created')).toEqual([expect.objectContaining({ username: 'gus', actor: byConsole })])
    expect(ofType('account.disabled')).toEqual([expect.objectContaining({ username: 'gus', actor: byConsole })])

    const lee = { username: 'lee', password: 'lee password 1' }
    const leeId = (await stack.as.accounts.setUser(lee.username, lee.password, {}, ['mcp'])).id
    await authorizeWithForm(stack.origin, lee, 'http://127.0.0.1:9/callback')
    const grant = (await stack.as.administration.grants.list({ username: 'lee' })).find((candidate) => candidate.clientId !== 'mcp-auth-console')!
    const leeBrowser = new ConsoleVisitor(stack.origin, lee)
    await leeBrowser.open('/account')
    events.length = 0
    await leeBrowser.submit('/account', `revoke-${grant.clientId}`)
    expect(ofType('grant.revoked')).toEqual([
      expect.objectContaining({ reason: 'user', subject: leeId, clientId: grant.clientId, actor: { subject: leeId, username: 'lee', channel: 'console' } }),
    ])
  })
})

describe('administration events through the CLI', () => {
  it('names the operating-system user of the local-file mode, once per action', async () => {
    const s = await startAuthServer()
    await s.as.accounts.setUser('fred', 'fred password 1')
    await s.stop()
    try {
      const env = { MCP_AUTH_LOG_LEVEL: 'info' }
      const disabled = await runCli(['users', 'disable', 'fred', '--data-dir', s.dataDir], { env })
      expect(disabled.code).toBe(0)
      const added = await runCli(['resources', 'add', 'https://tools.example/mcp', '--scopes', 'tools', '--data-dir', s.dataDir], { env })
      expect(added.code).toBe(0)
      const recorded = [...auditLines(disabled.stderr), ...auditLines(added.stderr)]
      const actor = { osUser: userInfo().username, channel: 'cli-local' }
      expect(recorded.map((event) => [event.type, event.actor])).toEqual([
        ['account.disabled', actor],
        ['resource.added', actor],
      ])
      expect(recorded[0]).toMatchObject({ username: 'fred', result: 'success' })
      // quiet by default: stdout carries the answer, stderr no event line
      const quiet = await runCli(['users', 'enable', 'fred', '--data-dir', s.dataDir])
      expect(quiet.code).toBe(0)
      expect(auditLines(quiet.stderr)).toEqual([])
      // kept where the server keeps its own: the data directory's trail, as mcp-auth audit reads it
      const trail = await runCli(['audit', '--data-dir', s.dataDir, '--json', '--type', 'account.', '--type', 'resource.'])
      expect(trail.code).toBe(0)
      const kept = trail.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; actor?: Record<string, unknown> })
      expect(kept.map((event) => [event.type, event.actor?.['os_user'] ?? event.actor?.['osUser']])).toEqual([
        ['account.disabled', actor.osUser],
        ['resource.added', actor.osUser],
        ['account.enabled', actor.osUser],
      ])
    } finally {
      await s.stop(true)
    }
  })
})

describe('administration events through the CLI on Redis', () => {
  it('names the operating-system user of the direct Redis mode', async () => {
    const redis = await startRedisServer()
    const s = await startAuthServer({ redis: redis.url })
    try {
      await s.as.accounts.setUser('hal', 'hal password 1')
      await s.stop()
      const env = { MCP_AUTH_LOG_LEVEL: 'info' }
      const disabled = await runCli(['users', 'disable', 'hal', '--redis', redis.url, '--data-dir', s.dataDir], { env })
      expect(disabled.code).toBe(0)
      const removed = await runCli(['resources', 'remove', 'https://none.example/mcp', '--redis', redis.url, '--data-dir', s.dataDir], { env })
      const recorded = auditLines(disabled.stderr)
      expect(recorded).toEqual([expect.objectContaining({ type: 'account.disabled', username: 'hal', actor: { osUser: userInfo().username, channel: 'cli-redis' } })])
      // nothing removed, nothing recorded
      expect(removed.code).not.toBe(0)
      expect(auditLines(removed.stderr)).toEqual([])
      // in the deployment's stream, where every node keeps its events
      const trail = await runCli(['audit', '--redis', redis.url, '--data-dir', s.dataDir, '--json', '--type', 'account.'])
      expect(trail.code).toBe(0)
      expect(
        trail.stdout
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { type: string }).type),
      ).toEqual(['account.disabled'])
    } finally {
      await rm(s.dataDir, { recursive: true, force: true })
      await redis.stop()
    }
  })
})

/** The audit events a command wrote to its log (JSON lines on stderr). */
function auditLines(stderr: string): AuditEvent[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { audit?: AuditEvent })
    .flatMap((line) => (line.audit !== undefined ? [line.audit] : []))
}
