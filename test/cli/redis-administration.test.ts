// Issue 27, items 7 and 8: a Redis deployment is administered with the CLI while its nodes run.
// Two real `mcp-auth start --redis` nodes behind a real HAProxy on one real redis-server; every
// administration verb runs as its own process with --redis, and its effect is checked on each node.
import type { ChildProcess } from 'node:child_process'
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as oidc from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaults } from '../../src/config/defaults.js'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { adminToken } from '../helpers/admin-api.js'
import { authorizeWithForm } from '../helpers/form-login.js'
import { freePort } from '../helpers/free-port.js'
import { startHaproxy, type Haproxy } from '../helpers/haproxy.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const REDIRECT = 'http://127.0.0.1:9/callback'
const ALICE = { username: 'alice', password: 'alice has a long password' }
const OTHER_RESOURCE = 'http://127.0.0.1:9/other-mcp'
// another endpoint of the same server (issue 28, item 2): an identifier of its own
const OTHER_ALIAS = 'http://127.0.0.1:9/other-sse'

let redis: RedisServer
let proxy: Haproxy
let dataDir: string
let ports: number[] = []
const nodes: ChildProcess[] = []
const banners: Array<() => string> = []

/** `mcp-auth <args> --redis URL --data-dir <a node's>`: the deployment's store, while the nodes run. */
const admin = (args: string[], env: Record<string, string> = {}) => runCli([...args, '--redis', redis.url, '--data-dir', dataDir], { env })

/** A request straight to node `i`, as the proxy forwards it (its public host in X-Forwarded-Host). */
function toNode(i: number, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  headers.set('x-forwarded-host', new URL(proxy.origin).host)
  headers.set('x-forwarded-proto', 'http')
  return fetch(`http://127.0.0.1:${ports[i]}${path}`, { ...init, headers })
}

/** An MCP initialize on node `i` with `token`: the HTTP status (200 served, 401 refused). */
async function mcpStatus(i: number, token: string, endpoint = '/mcp'): Promise<number> {
  const response = await toNode(i, endpoint, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  })
  await response.arrayBuffer()
  return response.status
}

/** A client_credentials token request on node `i`: status and OAuth error. */
async function clientCredentials(i: number, client: { id: string; secret: string }, resource: string, scope?: string): Promise<{ status: number; error?: string; scope?: string }> {
  const response = await toNode(i, '/token', {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, ...(scope !== undefined ? { scope } : {}) }),
  })
  const body = (await response.json()) as { error?: string; scope?: string }
  return { status: response.status, ...(body.error !== undefined ? { error: body.error } : {}), ...(body.scope !== undefined ? { scope: body.scope } : {}) }
}

/** Polls `check` until it holds (a pub/sub message takes a moment on a loaded machine). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within 5 s: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** alice's tokens, got through the real login and consent pages behind the proxy. */
async function aliceLogin(): Promise<{ accessToken: string; clientId: string }> {
  const { config, callback, verifier } = await authorizeWithForm(proxy.origin, ALICE, REDIRECT)
  const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: oidc.skipStateCheck })
  return { accessToken: tokens.access_token, clientId: config.clientMetadata().client_id }
}

beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-redis-admin-'))
  ports = await Promise.all([freePort(), freePort()])
  proxy = await startHaproxy(ports)
  // no --demo, and a demo password in the environment: still no demo account on Redis
  const started = await Promise.all(
    ports.map((port) =>
      startCli(['start', '--redis', redis.url, '--issuer', proxy.origin, '--trust-proxy', '--port', String(port), '--data-dir', dataDir], {
        env: { MCP_AUTH_DEMO_PASSWORD: 'a demo password nobody asked for' },
        timeoutMs: 30_000,
      }),
    ),
  )
  for (const node of started) {
    nodes.push(node.child)
    banners.push(node.output)
  }
}, 60_000)

afterAll(async () => {
  await Promise.all(nodes.map((child) => stopChild(child, 'SIGKILL')))
  await proxy?.close()
  await redis?.close()
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })
})

describe('start --redis (several nodes: production)', () => {
  it('creates no demo account without --demo, prints no password, and recommends commands with --redis', async () => {
    const list = await admin(['users', 'list'])
    expect(list.code).toBe(0)
    expect(list.stdout).not.toMatch(/^demo\t/m)
    for (const banner of banners) {
      expect(banner()).not.toMatch(/password:/)
      expect(banner()).toMatch(/Demo account\s+none/)
      expect(banner()).toContain(`mcp-auth users add <name> [--scopes "mcp mcp:admin"] --redis ${redis.url} --data-dir ${dataDir}`)
    }
  })

  it('keeps no local store in the data directory, and an administration command without --redis refuses, naming where the store is', async () => {
    await expect(access(join(dataDir, defaults.storage.dbFile))).rejects.toThrow()
    for (const args of [
      ['users', 'add', 'bob'],
      ['users', 'disable', 'demo'],
      ['users', 'list'],
      ['grants', 'list'],
      ['clients', 'list'],
      ['resources', 'add', OTHER_RESOURCE],
    ]) {
      const result = await runCli([...args, '--data-dir', dataDir], { env: { MCP_AUTH_PASSWORD: 'bob has a long password', MCP_AUTH_REDIS_URL: '' } })
      expect(result.code, args.join(' ')).toBe(1)
      expect(result.stderr).toContain(`store is in Redis (${redis.url}`)
      expect(result.stderr).toContain('Add --redis URL')
      expect(result.stdout).toBe('')
    }
    await expect(access(join(dataDir, defaults.storage.dbFile))).rejects.toThrow()
  })
})

describe('where an administration command finds the deployment', () => {
  it('reads MCP_AUTH_REDIS_URL, and a configuration file naming storage.redis', async () => {
    const fromEnv = await runCli(['users', 'add', 'carol', '--data-dir', dataDir], { env: { MCP_AUTH_REDIS_URL: redis.url, MCP_AUTH_PASSWORD: 'carol has a long password' } })
    expect(fromEnv.code, fromEnv.stderr).toBe(0)
    const config = join(dataDir, 'config.json')
    await writeFile(config, JSON.stringify({ storage: { redis: redis.url } }))
    // today's main: "Cannot read properties of undefined (reading 'list')"
    for (const args of [
      ['grants', 'list'],
      ['clients', 'list'],
      ['users', 'delete', 'carol'],
    ]) {
      const result = await runCli([...args, '--config', config, '--data-dir', dataDir], { env: { MCP_AUTH_REDIS_URL: '' } })
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
    }
    expect((await admin(['users', 'list'])).stdout).not.toContain('carol')
  })
})

describe('administration verbs with --redis, while the nodes run', () => {
  let login: { accessToken: string; clientId: string }

  it('users add: the account logs in through the deployment at once', async () => {
    const added = await admin(['users', 'add', ALICE.username, '--scopes', 'mcp'], { MCP_AUTH_PASSWORD: ALICE.password })
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toMatch(/account alice \(.+\) saved/)
    login = await aliceLogin()
    expect(await mcpStatus(0, login.accessToken)).toBe(200)
    expect(await mcpStatus(1, login.accessToken)).toBe(200)
    const list = await admin(['users', 'list'])
    expect(list.stdout).toMatch(/^alice\t\S+\tmcp$/m)
  })

  it('users add --admin (issue 32): an administrator for every node, kept as the last one by set-role', async () => {
    const root = { username: 'root', password: 'root has a long password' }
    const added = await admin(['users', 'add', root.username, '--admin'], { MCP_AUTH_PASSWORD: root.password })
    expect(added.code, added.stderr).toBe(0)
    expect((await admin(['users', 'list'])).stdout).toMatch(/^root\t\S+\t\(default scopes\)\tadmin$/m)
    const token = (await adminToken(proxy.origin, root)).access_token
    for (const i of [0, 1]) {
      const answer = await toNode(i, '/admin/api/accounts', { headers: { authorization: `Bearer ${token}` } })
      expect(answer.status).toBe(200)
      await answer.arrayBuffer()
    }
    const last = await admin(['users', 'set-role', root.username, 'user'])
    expect(last.code).toBe(1)
    expect(last.stderr).toContain('root is the last active administrator')
  })

  it("every node publishes each endpoint's own metadata and takes a token for /mcp at /rest (issue 28, item 2)", async () => {
    for (const i of [0, 1]) {
      for (const endpoint of ['/mcp', '/sse', '/rest']) {
        const metadata = (await (await toNode(i, `/.well-known/oauth-protected-resource${endpoint}`)).json()) as { resource: string }
        expect(metadata.resource).toBe(`${proxy.origin}${endpoint}`)
      }
      expect(await mcpStatus(i, login.accessToken, '/rest')).toBe(200)
    }
  })

  it('grants list shows the grant, grants revoke ends it: its token is refused on every node', async () => {
    const list = await admin(['grants', 'list', '--user', ALICE.username])
    expect(list.code, list.stderr).toBe(0)
    const lines = list.stdout.trim().split('\n')
    expect(lines).toHaveLength(1)
    const [grantId, username, clientId] = lines[0]!.split('\t')
    expect(username).toBe(ALICE.username)
    expect(clientId).toBe(login.clientId)
    const revoked = await admin(['grants', 'revoke', grantId!])
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(revoked.stdout).toBe(`grant ${grantId} ended\n`)
    await eventually(async () => (await mcpStatus(0, login.accessToken)) === 401 && (await mcpStatus(1, login.accessToken)) === 401, 'the revoked grant refused on both nodes')
  })

  it('users disable: the account cannot log in and its tokens are refused on every node', async () => {
    login = await aliceLogin()
    expect(await mcpStatus(0, login.accessToken)).toBe(200)
    expect(await mcpStatus(1, login.accessToken)).toBe(200)
    const disabled = await admin(['users', 'disable', ALICE.username])
    expect(disabled.code, disabled.stderr).toBe(0)
    expect(disabled.stdout).toBe('account alice disabled; 1 grant ended\n')
    await eventually(async () => (await mcpStatus(0, login.accessToken)) === 401 && (await mcpStatus(1, login.accessToken)) === 401, 'the disabled account refused on both nodes')
    await expect(aliceLogin()).rejects.toThrow()
  })

  it('clients add and list; resources add is served by every node without a restart; clients remove is refused everywhere', async () => {
    const added = await admin(['clients', 'add', '--name', 'batch job'])
    expect(added.code, added.stderr).toBe(0)
    const client = { id: /client_id: (\S+)/.exec(added.stdout)![1]!, secret: /client_secret: (\S+)/.exec(added.stdout)![1]! }
    const list = await admin(['clients', 'list'])
    expect(list.stdout).toContain(`${client.id}\tbatch job\tclient_credentials`)

    for (const i of [0, 1]) expect(await clientCredentials(i, client, OTHER_RESOURCE)).toEqual({ status: 400, error: 'invalid_target' })
    for (const i of [0, 1]) expect(await clientCredentials(i, client, OTHER_ALIAS)).toEqual({ status: 400, error: 'invalid_target' })
    const resource = await admin(['resources', 'add', OTHER_RESOURCE, '--scopes', 'tools tools:write', '--name', 'another MCP server', '--aliases', OTHER_ALIAS])
    expect(resource.code, resource.stderr).toBe(0)
    expect(resource.stdout).toContain('served by every node now')
    await eventually(
      async () => (await clientCredentials(0, client, OTHER_RESOURCE)).status === 200 && (await clientCredentials(1, client, OTHER_RESOURCE)).status === 200,
      'a token for the added resource from both nodes',
    )
    // its alias too, on both nodes at once
    for (const i of [0, 1]) expect((await clientCredentials(i, client, OTHER_ALIAS)).status).toBe(200)
    // a scope new to the deployment: the client registered none, so it may have the resource's default one
    for (const i of [0, 1]) expect(await clientCredentials(i, client, OTHER_RESOURCE, 'tools')).toEqual({ status: 200, scope: 'tools' })
    expect((await admin(['resources', 'list'])).stdout).toContain(`${OTHER_RESOURCE}\tanother MCP server`)
    const removedResource = await admin(['resources', 'remove', OTHER_RESOURCE])
    expect(removedResource.code, removedResource.stderr).toBe(0)
    await eventually(
      async () => (await clientCredentials(0, client, OTHER_RESOURCE)).status === 400 && (await clientCredentials(1, client, OTHER_RESOURCE)).status === 400,
      'the removed resource refused by both nodes',
    )
    for (const i of [0, 1]) expect(await clientCredentials(i, client, OTHER_ALIAS)).toEqual({ status: 400, error: 'invalid_target' })

    // options before '--': a generated client id may begin with '-'
    const removed = await runCli(['clients', 'remove', '--redis', redis.url, '--data-dir', dataDir, '--', client.id])
    expect(removed.code, removed.stderr).toBe(0)
    for (const i of [0, 1]) expect(await clientCredentials(i, client, `${proxy.origin}/mcp`)).toEqual({ status: 401, error: 'invalid_client' })
  })

  it('users delete: the account is gone for every node', async () => {
    const deleted = await admin(['users', 'delete', ALICE.username])
    expect(deleted.code, deleted.stderr).toBe(0)
    expect((await admin(['users', 'list'])).stdout).not.toContain('alice')
  })
})

describe('start --redis --demo', () => {
  it('two nodes starting at once create one demo account, without mcp:admin; exactly one prints its password', async () => {
    const prefix = 'demo-test:'
    const demoDir = await mkdtemp(join(tmpdir(), 'mcp-auth-redis-demo-'))
    const demoPorts = await Promise.all([freePort(), freePort()])
    const issuer = `http://localhost:${await freePort()}`
    const started = await Promise.all(
      demoPorts.map((port) =>
        startCli(['start', '--redis', redis.url, '--redis-prefix', prefix, '--demo', '--issuer', issuer, '--port', String(port), '--data-dir', demoDir], { timeoutMs: 30_000 }),
      ),
    )
    try {
      // the banner follows "listening" at once
      await new Promise((resolve) => setTimeout(resolve, 200))
      const printed = started.filter((node) => /password: \S+/.test(node.output()))
      expect(printed).toHaveLength(1)
      const list = await runCli(['users', 'list', '--redis', redis.url, '--redis-prefix', prefix, '--data-dir', demoDir])
      expect(list.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^demo\t\S+\tmcp$/)])
    } finally {
      await Promise.all(started.map((node) => stopChild(node.child, 'SIGKILL')))
      await rm(demoDir, { recursive: true, force: true })
    }
  })
})
