// Issue 33: the audit of MCP calls at a protected endpoint: refusals recorded by default (a tool's
// missing scope, the rate limit, a replayed DPoP proof), allowed calls when the resource turns
// them on (status and duration), arguments only for the tools named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash, randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose'
import { McpClient } from '../../../src/client/index.js'
import { StreamableHttpClientTransport } from '../../../src/transports/http-client/index.js'
import { Observer } from '../../../src/observe/observer.js'
import type { StoredAuditEvent } from '../../../src/observe/audit-event.js'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

let observer: Observer
let events: StoredAuditEvent[]
let stack: ProtectedStack
let signingKey: Awaited<ReturnType<typeof importJWK>>
let signingKid: string

beforeAll(async () => {
  observer = new Observer()
  events = []
  observer.addAuditObserver((event) => events.push(event))
  stack = await startProtectedStack({ mcp: { observer, audit: { allowedCalls: true, includeArguments: ['echo'] }, rateLimit: { burst: 30, requestsPerMinute: 60 } } })
  const jwks = JSON.parse(await readFile(join(stack.dataDir, 'jwks.json'), 'utf8')) as { current: Array<JWK & { kid: string; alg: string }> }
  const es256 = jwks.current.find((key) => key.alg === 'ES256')!
  signingKey = await importJWK(es256, 'ES256')
  signingKid = es256.kid
})
afterAll(() => stack.stop())

function token(subject: string, scope: string, claims: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ client_id: 'audited-client', scope, ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signingKid })
    .setIssuer(stack.as.issuer)
    .setAudience(stack.resource)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .setSubject(subject)
    .sign(signingKey)
}

async function connect(bearer: string): Promise<McpClient> {
  // a handshake revision: the calls have a session to name
  const client = new McpClient({ name: 'audited', version: '1' }, { protocolVersion: '2025-11-25' })
  const authorized: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${bearer}` } })
  await client.connect(new StreamableHttpClientTransport(`${stack.origin}/mcp`, { fetch: authorized, openGetStream: false }))
  return client
}

const ofType = (type: string, subject?: string) => events.filter((event) => event.type === type && (subject === undefined || event.subject === subject))

describe('the audit of MCP calls at a protected endpoint', () => {
  it('records a call refused for a missing tool scope: who, the tool, the scopes held and needed, why', async () => {
    const client = await connect(await token('limited-user', 'mcp'))
    await expect(client.callTool('admin_stats', {})).rejects.toThrow()
    await client.close()
    const refused = ofType('mcp.call-refused', 'limited-user')
    expect(refused).toHaveLength(1)
    expect(refused[0]).toMatchObject({
      result: 'refused',
      reason: 'insufficient_scope',
      clientId: 'audited-client',
      resource: stack.resource,
      scopes: ['mcp'],
      addressGroup: '127.0.0.1',
      details: { method: 'tools/call', tool: 'admin_stats', scopesNeeded: ['mcp:admin'] },
    })
    expect(typeof refused[0]!.details!['session']).toBe('string')
  })

  it('records allowed calls when turned on, with status and duration, and arguments only for the tools named', async () => {
    const secret = `argument-${randomUUID()}`
    const client = await connect(await token('allowed-user', 'mcp mcp:admin'))
    await client.callTool('echo', { text: 'hello' })
    await client.callTool('whoami', { note: secret })
    await expect(client.callTool('no_such_tool', {})).rejects.toThrow()
    await client.close()
    const allowed = ofType('mcp.call-allowed', 'allowed-user')
    expect(allowed.map((event) => [event.details!['tool'], event.details!['status']])).toEqual([
      ['echo', 'ok'],
      ['whoami', 'ok'],
      ['no_such_tool', 'error -32602'],
    ])
    for (const event of allowed) {
      expect(event).toMatchObject({ result: 'success', clientId: 'audited-client', resource: stack.resource, scopes: ['mcp', 'mcp:admin'] })
      expect(event.details!['durationMs']).toBeGreaterThanOrEqual(0)
      expect(typeof event.details!['session']).toBe('string')
    }
    expect(allowed[0]!.details!['arguments']).toBe('{"text":"hello"}')
    expect(allowed[1]!.details).not.toHaveProperty('arguments')
    expect(JSON.stringify(events)).not.toContain(secret)
  })

  it('records the rate-limit refusals once per Retry-After window, without the token', async () => {
    const bearer = await token('flooder', 'mcp')
    const statuses: number[] = []
    for (let i = 0; i < 34; i++) {
      const response = await fetch(`${stack.origin}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      })
      statuses.push(response.status)
      await response.arrayBuffer()
    }
    const refusals = statuses.filter((status) => status === 429).length
    expect(refusals).toBeGreaterThanOrEqual(2)
    // once per Retry-After window, the next event counting the refusals in between
    const limited = ofType('mcp.rate-limited', 'flooder')
    expect(limited.length).toBeGreaterThanOrEqual(1)
    expect(limited.length).toBeLessThan(refusals)
    const alsoRefused = limited.slice(1).reduce((sum, event) => sum + Number(event.details!['alsoRefused']), 0)
    expect(limited.length + alsoRefused).toBeLessThanOrEqual(refusals)
    expect(limited[0]).toMatchObject({ result: 'refused', reason: 'rate limit', clientId: 'audited-client', details: { method: 'tools/call', tool: 'whoami' } })
    expect(limited[0]!.details!['retryAfterSeconds']).toBeGreaterThanOrEqual(1)
    expect(JSON.stringify(events)).not.toContain(bearer)
    expect(JSON.stringify(events)).not.toContain(bearer.slice(-20))
  })

  it('records a replayed DPoP proof refused by the resource', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256')
    const jwk = await exportJWK(publicKey)
    const jkt = await calculateJwkThumbprint(jwk)
    const access = await token('dpop-user', 'mcp', { cnf: { jkt } })
    const proof = await new SignJWT({ htm: 'POST', htu: `${stack.origin}/mcp`, jti: randomUUID(), ath: createHash('sha256').update(access).digest('base64url') })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .setIssuedAt()
      .sign(privateKey)
    const send = () =>
      fetch(`${stack.origin}/mcp`, {
        method: 'POST',
        headers: { authorization: `DPoP ${access}`, dpop: proof, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      }).then(async (response) => {
        await response.arrayBuffer()
        return response.status
      })
    expect(await send()).not.toBe(401)
    expect(await send()).toBe(401)
    const replays = ofType('dpop.replay-refused', 'dpop-user')
    expect(replays).toHaveLength(1)
    expect(replays[0]).toMatchObject({ result: 'refused', clientId: 'audited-client', resource: stack.resource, addressGroup: '127.0.0.1' })
    expect(JSON.stringify(replays)).not.toContain(proof.slice(-20))
  })
})
