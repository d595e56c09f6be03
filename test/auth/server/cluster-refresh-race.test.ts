// Issue 16: two processes of one deployment share Redis; a one-time value used on both at the same
// moment (a refresh token, an authorization code) gives one success, never two live chains.
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuthorizationServer, type AuthorizationServer } from '../../../src/auth/server/create-authorization-server.js'
import { RedisConnection } from '../../../src/redis/connection.js'
import { createRedisStorage } from '../../../src/redis/redis-storage.js'
import { authorizeWithForm } from '../../helpers/form-login.js'
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js'

const REDIRECT = 'http://127.0.0.1/callback'
const USER = { username: 'rita', password: 'rita password 1' }

interface Node {
  origin: string
  as: AuthorizationServer
  server: Server
  redis: RedisConnection
}

let redis: RedisServer
let dataDir: string
const nodes: Node[] = []
let issuer = ''

/** A node listening first, so the issuer (the first node's origin) is known before either server is built. */
async function listenNode(): Promise<{ server: Server; origin: string; serve: (as: AuthorizationServer) => void }> {
  let handler: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined
  const server = createServer((req, res) => (handler === undefined ? res.writeHead(503).end() : handler(req, res)))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, serve: (as) => void (handler = as.app.callback()) }
}

beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-race-'))
  const listening = [await listenNode(), await listenNode()]
  issuer = listening[0]!.origin
  for (const { server, origin, serve } of listening) {
    const connection = await RedisConnection.connect({ url: redis.url })
    const as = await createAuthorizationServer({
      issuer,
      dataDir,
      storage: createRedisStorage({ connection }),
      // the second node is reached on its own port, naming the shared public host as a proxy would
      trustProxy: true,
      resources: [{ uri: `${issuer}/mcp`, scopes: ['mcp'] }],
      rateLimits: { loginPerAccount: 10_000, loginPerAddress: 10_000, registrationPerAddress: 10_000 },
    })
    serve(as)
    nodes.push({ origin, as, server, redis: connection })
  }
  await nodes[0]!.as.accounts.setUser(USER.username, USER.password)
}, 30_000)

afterAll(async () => {
  for (const node of nodes) {
    node.server.closeAllConnections()
    await new Promise((resolve) => node.server.close(resolve))
    await node.as.close()
    await node.redis.close()
  }
  await redis.close()
  await rm(dataDir, { recursive: true, force: true })
})

/** A token request sent to one node, as the proxy would forward it (the public host in X-Forwarded-Host). */
async function tokenRequest(node: Node, form: Record<string, string>): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${node.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-host': new URL(issuer).host, 'x-forwarded-proto': 'http' },
    body: new URLSearchParams(form),
  })
  return { status: res.status, body: (await res.json()) as Record<string, string> }
}

async function authorize(): Promise<{ clientId: string; code: string; verifier: string }> {
  const { config, callback, verifier } = await authorizeWithForm(issuer, USER, REDIRECT)
  return { clientId: config.clientMetadata().client_id, code: callback.searchParams.get('code')!, verifier }
}

const codeForm = (a: { clientId: string; code: string; verifier: string }) => ({
  grant_type: 'authorization_code',
  client_id: a.clientId,
  code: a.code,
  code_verifier: a.verifier,
  redirect_uri: REDIRECT,
})

describe('one-time values used on two processes at once', () => {
  it('an authorization code redeemed on both nodes at the same moment gives tokens once', async () => {
    for (let round = 0; round < 4; round++) {
      const grant = await authorize()
      const answers = await Promise.all(nodes.map((node) => tokenRequest(node, codeForm(grant))))
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1)
      expect(answers.find((answer) => answer.status !== 200)?.body['error']).toBe('invalid_grant')
    }
  }, 30_000)

  it('a refresh token redeemed on both nodes at the same moment leaves exactly one live chain', async () => {
    for (let round = 0; round < 4; round++) {
      const grant = await authorize()
      const first = await tokenRequest(nodes[0]!, codeForm(grant))
      expect(first.status).toBe(200)
      const refresh = { grant_type: 'refresh_token', client_id: grant.clientId, refresh_token: first.body['refresh_token']! }
      const answers = await Promise.all(nodes.map((node) => tokenRequest(node, refresh)))
      const successors = answers.filter((answer) => answer.status === 200).map((answer) => answer.body['refresh_token']!)
      expect(successors.length).toBeGreaterThanOrEqual(1)
      // two successes are the grace rule's retry: then the first success's successor is dead
      const live = []
      for (const successor of successors) live.push((await tokenRequest(nodes[0]!, { ...refresh, refresh_token: successor })).status === 200)
      expect(live.filter(Boolean)).toHaveLength(1)
    }
  }, 30_000)
})
