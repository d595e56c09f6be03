// Issue 33 (logs): every request to the authorization server is named by its route template, never its raw path.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthorizationServer, createAuthorizationServer } from '../../../src/auth/server/create-authorization-server.js'
import { accessLog } from '../../../src/observe/access-log.js'
import { Observer } from '../../../src/observe/observer.js'
import { memoryLog } from '../../helpers/memory-log.js'

const { log, lines } = memoryLog()
let server: Server
let origin: string
let as: AuthorizationServer
let dataDir: string

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-route-template-'))
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined
  server = createServer((req, res) => handler?.(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const observer = new Observer({ log })
  observer.addRequestObserver(accessLog({ log }))
  as = await createAuthorizationServer({ issuer: origin, dataDir, rateLimits: false, observer })
  handler = observer.observeRequests(as.app.callback())
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await as.close()
  await rm(dataDir, { recursive: true, force: true })
})

/** The access line of one request. */
async function routeOf(path: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  const before = lines.length
  const answer = await fetch(`${origin}${path}`, { redirect: 'manual', ...init })
  await answer.arrayBuffer()
  const deadline = Date.now() + 2_000
  while (!lines.slice(before).some((line) => line['msg'] === 'request') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
  return lines.slice(before).find((line) => line['msg'] === 'request')!
}

describe('routeTemplate', () => {
  it.each([
    ['/token', { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials' }) }, '/token'],
    ['/authorize?client_id=x&code_challenge=SECRET-challenge', {}, '/authorize'],
    ['/authorize/uid-SECRET-123', {}, '/authorize/{uid}'],
    ['/register/client-SECRET-id', {}, '/register/{clientId}'],
    ['/jwks', {}, '/jwks'],
    ['/.well-known/oauth-authorization-server', {}, '/.well-known/oauth-authorization-server'],
    ['/.well-known/openid-configuration', {}, '/.well-known/openid-configuration'],
    ['/interaction/uid-SECRET-123', {}, '/interaction/{uid}'],
    ['/interaction/uid-SECRET-123/login', { method: 'POST' }, '/interaction/{uid}/login'],
    ['/admin/api/accounts/user-SECRET-name', {}, '/admin/api/accounts/{username}'],
    ['/admin/api/accounts/user-SECRET-name/password-link', { method: 'POST' }, '/admin/api/accounts/{username}/password-link'],
    ['/admin/password/token-SECRET-abc', {}, '/admin/password/{token}'],
    ['/admin/accounts/user-SECRET-name', {}, '/admin/accounts/{username}'],
    ['/account', {}, '/account'],
    ['/somewhere/SECRET-unknown', {}, 'unmatched'],
  ] as Array<[string, RequestInit, string]>)('names %s by its template', async (path, init, template) => {
    const line = await routeOf(path, init)
    expect(line['route']).toBe(template)
    expect(JSON.stringify(line)).not.toContain('SECRET')
  })

  it('notes the client a token request authenticated', async () => {
    const client = await as.addClient({
      client_name: 'reporter',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
    } as never)
    const { client_id: id, client_secret: secret } = client as unknown as { client_id: string; client_secret: string }
    const line = await routeOf('/token', {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp' }),
    })
    expect(line).toMatchObject({ route: '/token', status: 200, client_id: id })
  })
})
