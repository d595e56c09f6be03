// Issue 32: the console on two nodes behind HAProxy on one redis-server: a sign-in begun on one
// node ends on the other (derived client secret and cookie key, codes in Redis), forms of one node
// are accepted by the other, and the one-time links are claimed once across nodes.
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuthorizationServer, type AuthorizationServer } from '../../../../src/auth/server/create-authorization-server.js'
import { ConsoleVisitor } from '../../../helpers/console-browser.js'
import { freePort } from '../../../helpers/free-port.js'
import { startHaproxy, type Haproxy } from '../../../helpers/haproxy.js'
import { startRedisServer, type RedisServer } from '../../../helpers/redis-server.js'

let redis: RedisServer
let proxy: Haproxy
let dataDir: string
const nodes: Array<{ as: AuthorizationServer; server: Server }> = []
const root = { username: 'root', password: 'root password 1' }

beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-console-cluster-'))
  const ports = [await freePort(), await freePort()]
  const proxyPort = await freePort()
  const issuer = `http://localhost:${proxyPort}`
  // one after the other: the first writes the shared key files the second reads
  for (const port of ports) {
    const as = await createAuthorizationServer({
      issuer,
      dataDir,
      redis: { url: redis.url, prefix: 'console:' },
      trustProxy: true,
      rateLimits: false,
      resources: [{ uri: `${issuer}/mcp`, scopes: ['mcp'] }],
    })
    const handler = as.app.callback()
    const server = createServer((req, res) => (req.url === '/healthz' ? res.writeHead(200).end('ok') : handler(req, res)))
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    nodes.push({ as, server })
  }
  proxy = await startHaproxy(ports, { port: proxyPort })
})
afterAll(async () => {
  await proxy?.close()
  for (const { as, server } of nodes) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await as.close()
  }
  await redis?.close()
  await rm(dataDir, { recursive: true, force: true })
})

describe('the console on two nodes', () => {
  it('prints one setup link for both nodes starting together', async () => {
    const notices = await Promise.all(nodes.map(({ as }) => as.firstAdministrator()))
    expect(notices.map((notice) => notice.kind).sort()).toEqual(['link', 'printed'])
  })

  it('signs in through either node and serves pages and forms from both', async () => {
    await nodes[0]!.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
    await nodes[0]!.as.accounts.setUser('sam', 'sam password 1', {}, ['mcp'])
    const visitor = new ConsoleVisitor(proxy.origin, root)
    const served = new Set<string>()
    for (let i = 0; i < 4; i++) {
      const page = await visitor.open('/admin/accounts')
      expect(page.status).toBe(200)
      served.add(page.headers.get('x-served-by') ?? '')
    }
    expect(served).toEqual(new Set(['n0', 'n1']))
    // the form comes from one node, its post goes to the next (round robin)
    const disabled = await visitor.submit('/admin/accounts/sam', 'disable')
    expect(disabled.html).toContain('id="state">disabled<')
    const enabled = await visitor.submit('/admin/accounts/sam', 'enable')
    expect(enabled.html).toContain('id="state">active<')
  })

  it('sets a password with a one-time link once, when both nodes get it at the same instant', async () => {
    const visitor = new ConsoleVisitor(proxy.origin, root)
    const shown = await visitor.submit('/admin/accounts/sam', 'password-link')
    const link = new URL(/value="(http[^"]+\/admin\/password\/[^"]+)"/.exec(shown.html)![1]!)
    const holder = new ConsoleVisitor(proxy.origin, { username: 'sam', password: 'x' })
    const form = await holder.open(link.pathname)
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.html)![1]!
    const answers = await Promise.all(['sam password 2', 'sam password 3'].map((password) => holder.open(link.pathname, { form: { csrf, password, confirm: password } })))
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 410])
    const won = answers[0]!.status === 200 ? 'sam password 2' : 'sam password 3'
    const account = await nodes[1]!.as.accounts.findByUsername('sam')
    expect(await nodes[1]!.as.accounts.checkPassword(account!.id, won)).toBe(true)
  })
})
