// Issue 33: the audit trail in the admin API — newest first, filtered, a page at a time, the
// admin scope needed; the events kept in the data directory's audit.jsonl by the server itself.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminCall, adminToken } from '../../../helpers/admin-api.js'
import { startProtectedStack, type ProtectedStack } from '../../../helpers/protected-stack.js'

const root = { username: 'root', password: 'root password 1' }
const bea = { username: 'bea', password: 'bea password 1' }

let stack: ProtectedStack
let token: string
const base = Date.now() - 60_000
/** The events this file records itself come after this (the server records its own before: the administrator's sign-in, the token). */
let from: string

beforeAll(async () => {
  stack = await startProtectedStack()
  await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  await stack.as.accounts.setUser(bea.username, bea.password, { name: 'Bea' }, ['mcp'])
  token = (await adminToken(stack.origin, root)).access_token
  const observer = stack.as.observer
  await observer.trail!.flushed()
  await new Promise((resolve) => setTimeout(resolve, 5))
  from = encodeURIComponent(new Date().toISOString())
  observer.audit({ type: 'sign-in.failed', result: 'failure', reason: 'wrong password', username: 'bea', addressGroup: '127.0.0.1', details: { factor: 'password' } })
  observer.audit({ type: 'sign-in.succeeded', result: 'success', username: 'bea', subject: 'sub-bea', clientId: 'app-1', details: { factor: 'password' } })
  observer.audit({
    type: 'token.issued',
    result: 'success',
    subject: 'sub-bea',
    clientId: 'app-1',
    resource: stack.resource,
    scopes: ['mcp'],
    details: { grant_type: 'authorization_code' },
  })
  observer.audit({ type: 'client.blocked', result: 'success', actor: { username: 'root', osUser: 'ops', channel: 'admin-api' }, clientId: 'app-2' })
  for (let i = 0; i < 12; i++) observer.audit({ type: 'mcp.call-allowed', result: 'success', subject: 'sub-bea', clientId: 'app-1', details: { tool: `tool-${i}` } })
  await observer.trail!.flushed()
})
afterAll(() => stack.stop())

describe('admin API: GET /audit', () => {
  it('keeps the events the server records in audit.jsonl in its data directory', async () => {
    const lines = (await readFile(join(stack.dataDir, 'audit.jsonl'), 'utf8')).trim().split('\n')
    expect(lines.map((line) => JSON.parse(line).type)).toContain('client.blocked')
  })

  it('answers the newest events first in the API view (snake_case)', async () => {
    const { status, body } = await adminCall(stack.origin, token, 'GET', `/audit?limit=20&since=${from}`)
    expect(status).toBe(200)
    expect(body.items).toHaveLength(16)
    expect(body.items[0].type).toBe('mcp.call-allowed')
    expect(body.items[0].details.tool).toBe('tool-11')
    const blocked = body.items.find((event: { type: string }) => event.type === 'client.blocked')
    expect(blocked).toMatchObject({ result: 'success', client_id: 'app-2', actor: { username: 'root', os_user: 'ops', channel: 'admin-api' } })
    expect(blocked.clientId).toBeUndefined()
    expect(Date.parse(blocked.at)).toBeGreaterThan(base)
    expect(typeof blocked.id).toBe('string')
    expect(typeof blocked.node).toBe('string')
    const failed = body.items.find((event: { type: string }) => event.type === 'sign-in.failed')
    expect(failed).toMatchObject({ reason: 'wrong password', username: 'bea', address_group: '127.0.0.1' })
  })

  it('filters by user, client, repeated types and a prefix, and time', async () => {
    const types = async (query: string) => (await adminCall(stack.origin, token, 'GET', `/audit?${query}&since=${from}`)).body.items.map((event: { type: string }) => event.type)
    expect(await types('type=sign-in.')).toEqual(['sign-in.succeeded', 'sign-in.failed'])
    expect(await types('type=sign-in.failed&type=client.blocked')).toEqual(['client.blocked', 'sign-in.failed'])
    expect(await types('user=root')).toEqual(['client.blocked'])
    expect(await types('user=bea&type=sign-in.')).toEqual(['sign-in.succeeded', 'sign-in.failed'])
    expect(await types('client_id=app-2')).toEqual(['client.blocked'])
    expect(await types(`until=${encodeURIComponent(new Date(base).toISOString())}`)).toEqual([])
    const later = encodeURIComponent(new Date(Date.now() + 60_000).toISOString())
    expect((await adminCall(stack.origin, token, 'GET', `/audit?since=${later}`)).body.items).toEqual([])
    // without a filter the server's own events are there too: the administrator's sign-in for this token
    expect((await adminCall(stack.origin, token, 'GET', '/audit?user=root&type=sign-in.')).body.items.map((event: { type: string }) => event.type)).toContain('sign-in.succeeded')
  })

  it('pages with next_cursor until the last page', async () => {
    const first = await adminCall(stack.origin, token, 'GET', `/audit?limit=10&since=${from}`)
    expect(first.body.items).toHaveLength(10)
    expect(typeof first.body.next_cursor).toBe('string')
    const second = await adminCall(stack.origin, token, 'GET', `/audit?limit=10&since=${from}&cursor=${first.body.next_cursor}`)
    expect(second.body.items).toHaveLength(6)
    expect(second.body.next_cursor).toBeUndefined()
    expect(second.body.items.at(-1).type).toBe('sign-in.failed')
  })

  it('refuses a cursor it did not give, a limit past the cap and a bad time, as problems', async () => {
    for (const query of ['cursor=bm90LW91cnM', 'limit=100000', 'since=yesterday']) {
      const { status, body, headers } = await adminCall(stack.origin, token, 'GET', `/audit?${query}`)
      expect(status).toBe(400)
      expect(headers.get('content-type')).toContain('application/problem+json')
      expect(body.type).toBe('urn:mcp-auth:admin:invalid-request')
    }
  })

  it('refuses a request without a token, and a token for another resource', async () => {
    expect((await adminCall(stack.origin, undefined, 'GET', '/audit')).status).toBe(401)
    const mcpToken = (await adminToken(stack.origin, bea, { resource: stack.resource, scope: 'mcp' })).access_token
    const answer = await adminCall(stack.origin, mcpToken, 'GET', '/audit')
    expect(answer.status).toBe(401)
    expect(answer.body.type).toBe('urn:mcp-auth:admin:unauthenticated')
  })
})
