// issue 32: grants, clients and resources --server URL: the requests the CLI builds, the lines it
// prints and the problem details it reports, against a real server whose admin API token check is
// the real one (AdminAuthority) and whose operations for these paths answer as openapi.json says.
// The operations themselves are another part of issue 32: after the merge, the end-to-end tests
// in test/e2e/cli-admin-through-api.test.ts run them against `mcp-auth start`.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context, Next } from 'koa'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { runCliLoggingIn } from '../helpers/cli-admin.js'
import { startProtectedStack, type ProtectedStack } from '../helpers/protected-stack.js'

const root = { username: 'root', password: 'root password 1' }
let stack: ProtectedStack
let dir: string

/** What the fake operations were asked: method, path under the API, query, body. */
let asked: Array<{ method: string; path: string; query: Record<string, string>; body?: unknown }> = []

const problem = (ctx: Context, status: number, kind: string, detail: string, code?: string): void => {
  ctx.status = status
  ctx.type = 'application/problem+json'
  ctx.body = { type: `urn:mcp-auth:admin:${kind}`, title: kind, status, detail, ...(code !== undefined ? { code } : {}) }
}

const grant = (id: string, username: string) => ({
  grant_id: id,
  account_id: `sub-${username}`,
  username,
  client_id: 'cli-1',
  client_name: 'mcp-auth CLI',
  resources: { 'http://127.0.0.1/mcp': 'mcp offline_access' },
  created_at: '2026-11-26T10:00:00.000Z',
})

/** The operations of /grants, /clients and /resources as openapi.json describes them, behind the real token check. */
async function fakeOperations(ctx: Context, next: Next): Promise<void> {
  const match = /^\/admin\/api(\/(?:grants|clients|resources)(?:\/.*)?)$/.exec(ctx.path)
  if (match === null) return next()
  try {
    await stack.as.adminAuthority.authenticate({ method: ctx.method, url: new URL(ctx.href), headers: ctx.headers })
  } catch (error) {
    const refusal = stack.as.adminAuthority.bearer.errorResponse(error)
    ctx.set(refusal.headers)
    return problem(ctx, refusal.status, refusal.status === 401 ? 'unauthenticated' : 'forbidden', String(refusal.body['error_description'] ?? refusal.body['error']))
  }
  const path = match[1]!
  let body: unknown
  if (ctx.is('application/json')) {
    const chunks: Buffer[] = []
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer)
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  }
  asked.push({ method: ctx.method, path, query: { ...(ctx.query as Record<string, string>) }, ...(body !== undefined ? { body } : {}) })
  const json = (status: number, value: unknown): void => {
    ctx.status = status
    ctx.body = value
  }
  const route = `${ctx.method} ${path.replace(/^\/(grants|clients|resources)\/[^/]+/, '/$1/{id}')}`
  const id = decodeURIComponent(path.split('/')[2] ?? '')
  switch (route) {
    case 'GET /grants':
      return ctx.query['cursor'] === 'page-2' ? json(200, { items: [grant('g-2', 'bob')] }) : json(200, { items: [grant('g-1', 'alice')], next_cursor: 'page-2' })
    case 'DELETE /grants/{id}':
      return id === 'g-1' || id === 'g-2' ? void (ctx.status = 204) : problem(ctx, 404, 'not-found', `no grant ${id}`)
    case 'GET /clients':
      return json(200, {
        items: [
          {
            client_id: 'conf-1',
            client_name: 'Configured',
            origin: 'configured',
            grant_types: ['client_credentials'],
            redirect_uris: [],
            token_endpoint_auth_method: 'client_secret_basic',
            blocked: false,
          },
          {
            client_id: 'dyn-1',
            origin: 'dynamic',
            grant_types: ['authorization_code', 'refresh_token'],
            redirect_uris: ['http://127.0.0.1/cb'],
            token_endpoint_auth_method: 'none',
            blocked: true,
          },
          // a name a registrant chose: an escape sequence to clear the screen, a tab to add a field
          { client_id: 'dyn-2', client_name: 'evil\u001b[2J\tx', origin: 'dynamic', grant_types: ['authorization_code'], redirect_uris: ['http://127.0.0.1/cb'], blocked: false },
        ],
      })
    case 'POST /clients':
      return json(201, { client: { client_id: 'new-1', origin: 'administrator', grant_types: ['client_credentials'], redirect_uris: [], blocked: false }, client_secret: 's3cret' })
    case 'DELETE /clients/{id}':
      return id === 'dyn-1' ? json(200, { grants_ended: 2 }) : problem(ctx, 404, 'not-found', `no client ${id}`, 'unknown_client')
    case 'POST /clients/{id}/block':
    case 'DELETE /clients/{id}/block':
      ctx.status = 204
      return
    case 'GET /resources':
      return json(200, {
        items: [
          { id: 'x', uri: 'http://127.0.0.1/stored', name: 'Stored', scopes: ['mcp', 'files'], default_scopes: ['mcp'], access_token_ttl_seconds: 300, source: 'stored' },
          { id: 'y', uri: 'http://127.0.0.1/mcp', scopes: ['mcp'], default_scopes: ['mcp'], source: 'configured' },
        ],
      })
    case 'POST /resources': {
      const sent = body as { uri: string; scopes?: string[]; default_scopes?: string[] }
      return json(201, { id: 'z', uri: sent.uri, scopes: sent.scopes ?? ['mcp'], default_scopes: sent.default_scopes ?? ['mcp'], source: 'stored' })
    }
    case 'DELETE /resources/{id}': {
      const uri = Buffer.from(id, 'base64url').toString('utf8')
      if (uri === 'http://127.0.0.1/mcp') return problem(ctx, 409, 'conflict', `${uri} is configured: change the configuration instead`)
      return uri === 'http://127.0.0.1/stored' ? void (ctx.status = 204) : problem(ctx, 404, 'not-found', `no resource ${uri}`)
    }
  }
  return problem(ctx, 404, 'not-found', 'no such admin API operation: see openapi.json')
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-admin-verbs-'))
  stack = await startProtectedStack({ mcp: { middleware: [fakeOperations, (ctx, next) => stack.as.middleware(ctx, next)] } })
  await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  // one login for the whole file; each test then runs on the stored token
  const first = await cli(['grants', 'list'])
  expect(first.logins).toHaveLength(1)
})
afterAll(async () => {
  await stack?.stop()
  await rm(dir, { recursive: true, force: true })
})
beforeEach(() => {
  asked = []
})

function cli(args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  return runCliLoggingIn([...args, '--server', stack.origin, '--no-browser', '--store', join(dir, 'tokens.json')], root, options)
}

describe('mcp-auth grants --server URL', () => {
  it('lists every page with the filters, in the local mode’s lines', async () => {
    const listed = await cli(['grants', 'list', '--user', 'alice', '--client', 'cli-1'])
    expect(listed.code).toBe(0)
    expect(asked.map((a) => a.query)).toEqual([
      { username: 'alice', client_id: 'cli-1' },
      { username: 'alice', client_id: 'cli-1', cursor: 'page-2' },
    ])
    expect(listed.stdout).toBe(
      'g-1\talice\tcli-1 (mcp-auth CLI)\thttp://127.0.0.1/mcp: mcp offline_access\t2026-11-26T10:00:00.000Z\n' +
        'g-2\tbob\tcli-1 (mcp-auth CLI)\thttp://127.0.0.1/mcp: mcp offline_access\t2026-11-26T10:00:00.000Z\n',
    )
  })

  it('revokes one grant, or every grant of a filter, and says when there is none', async () => {
    expect((await cli(['grants', 'revoke', 'g-1'])).stdout).toBe('grant g-1 ended\n')
    expect(asked).toEqual([{ method: 'DELETE', path: '/grants/g-1', query: {} }])
    const missing = await cli(['grants', 'revoke', 'nope'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('mcp-auth grants: no grant nope\n')
    asked = []
    expect((await cli(['grants', 'revoke', '--user', 'alice'])).stdout).toBe('2 grants ended\n')
    expect(asked.filter((a) => a.method === 'DELETE').map((a) => a.path)).toEqual(['/grants/g-1', '/grants/g-2'])
  })
})

describe('mcp-auth clients --server URL', () => {
  it('lists with origin and blocked, passing the filters, client names printed inert', async () => {
    const listed = await cli(['clients', 'list', '--origin', 'dynamic', '--blocked'])
    expect(listed.code).toBe(0)
    expect(asked[0]!.query).toEqual({ origin: 'dynamic', blocked: 'true' })
    expect(listed.stdout).toBe(
      'conf-1\tConfigured\tclient_credentials\t-\tconfigured\n' +
        'dyn-1\t-\tauthorization_code refresh_token\thttp://127.0.0.1/cb\tblocked\n' +
        'dyn-2\tevil\ufffd[2J\ufffdx\tauthorization_code\thttp://127.0.0.1/cb\n',
    )
  })

  it('adds a client with RFC 7591 metadata (its --scope is the client’s, not the login’s) and prints the secret once', async () => {
    const added = await cli(['clients', 'add', '--name', 'robot', '--scope', 'mcp-auth:admin'])
    expect(added.code).toBe(0)
    expect(added.logins).toHaveLength(0)
    expect(asked[0]!.body).toEqual({
      client_name: 'robot',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'mcp-auth:admin',
    })
    expect(added.stdout).toBe('client_id: new-1\nclient_secret: s3cret\n(shown once; stored encrypted)\n')
  })

  it('removes, blocks and unblocks, and reports an unknown client', async () => {
    expect((await cli(['clients', 'remove', 'dyn-1'])).stdout).toBe('client dyn-1 removed; 2 grants ended\n')
    expect((await cli(['clients', 'block', 'dyn-1'])).stdout).toBe('client dyn-1 blocked\n')
    expect((await cli(['clients', 'unblock', 'dyn-1'])).stdout).toBe('client dyn-1 unblocked\n')
    expect(asked.map((a) => `${a.method} ${a.path}`)).toEqual(['DELETE /clients/dyn-1', 'POST /clients/dyn-1/block', 'DELETE /clients/dyn-1/block'])
    const missing = await cli(['clients', 'remove', 'gone'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('mcp-auth clients: no client gone\n')
  })
})

describe('mcp-auth resources --server URL', () => {
  it('lists every resource, marking those not stored', async () => {
    const listed = await cli(['resources', 'list'])
    expect(listed.stdout).toBe(
      'http://127.0.0.1/stored\tStored\tscopes: mcp files\tdefault: mcp\ttokens 300 s\n' + 'http://127.0.0.1/mcp\t-\tscopes: mcp\tdefault: mcp\t(configured)\n',
    )
  })

  it('adds one with snake_case settings and says every node serves it', async () => {
    const added = await cli([
      'resources',
      'add',
      'http://127.0.0.1/new',
      '--scopes',
      'mcp files',
      '--default-scopes',
      'mcp',
      '--token-lifetime',
      '120',
      '--opaque',
      '--name',
      'New',
    ])
    expect(added.code).toBe(0)
    expect(asked[0]!.body).toEqual({
      uri: 'http://127.0.0.1/new',
      scopes: ['mcp', 'files'],
      default_scopes: ['mcp'],
      name: 'New',
      access_token_ttl_seconds: 120,
      token_format: 'opaque',
    })
    expect(added.stdout).toBe('resource http://127.0.0.1/new saved: scopes mcp files (default mcp); served by every node now\n')
  })

  it('removes a stored one by its base64url id, and reports a configured one’s refusal in one line', async () => {
    expect((await cli(['resources', 'remove', 'http://127.0.0.1/stored'])).stdout).toBe(
      'resource http://127.0.0.1/stored removed (tokens already issued for it stay valid until they expire)\n',
    )
    expect(asked[0]!.path).toBe(`/resources/${Buffer.from('http://127.0.0.1/stored').toString('base64url')}`)
    const configured = await cli(['resources', 'remove', 'http://127.0.0.1/mcp'])
    expect(configured.code).toBe(1)
    expect(configured.stderr).toBe(
      'mcp-auth resources: removing the resource http://127.0.0.1/mcp: http://127.0.0.1/mcp is configured: change the configuration instead (409 conflict)\n',
    )
  })
})
