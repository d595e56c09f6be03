import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import Cookies from 'cookies'
import * as oidc from 'openid-client'
import { createAuthorizationServer, type AuthorizationServer } from '../../../src/auth/server/create-authorization-server.js'
import { formLogin } from '../../helpers/form-login.js'
import { createDemoServer } from '../../../src/demo/demo-server.js'
import { McpClient } from '../../../src/client/index.js'
import { StreamableHttpHandler, streamableHttpKoa } from '../../../src/transports/streamable-http/server/index.js'
import { connectHttp } from '../../../src/transports/http-client/index.js'
import { pkcePair } from '../../helpers/pkce-pair.js'

const insecure = { execute: [oidc.allowInsecureRequests] }

/** The authorization server mounted in a host Koa app that has routes (and cookie keys) of its own. */
let server: Server
let as: AuthorizationServer
let origin: string
let dataDir: string
let mcp: StreamableHttpHandler

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-mounted-'))
  mcp = new StreamableHttpHandler(createDemoServer(), { allowedHosts: ['127.0.0.1', 'localhost'] })
  const host = new Koa()
  host.keys = ['the host app key']
  let middleware: Koa.Middleware = async (_ctx, next) => next()
  host.use((ctx, next) => middleware(ctx, next))
  host.use(streamableHttpKoa(mcp, { path: '/mcp' }))
  host.use(async (ctx) => {
    if (ctx.path === '/host-route') {
      ctx.cookies.set('host-cookie', 'host-value', { signed: true })
      ctx.body = { served: 'by the host app' }
    }
  })
  server = createServer(host.callback())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  as = await createAuthorizationServer({ issuer: origin, dataDir, rateLimits: false })
  middleware = as.middleware
  await as.accounts.setUser('ivan', 'ivan password 1')
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await as.close()
  await mcp.close()
  await rm(dataDir, { recursive: true, force: true })
})

describe('the authorization server mounted in another Koa app', () => {
  it("passes the host's own routes through, with the host's cookie keys", async () => {
    const response = await fetch(`${origin}/host-route`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ served: 'by the host app' })
    const setCookies = response.headers.getSetCookie()
    const cookieHeader = setCookies.map((line) => line.split(';')[0]).join('; ')
    // The signature verifies with the host's key, not the authorization server's.
    const verifier = new Cookies({ headers: { cookie: cookieHeader } } as never, {} as never, { keys: ['the host app key'] })
    expect(verifier.get('host-cookie', { signed: true })).toBe('host-value')
    expect((await fetch(`${origin}/elsewhere`)).status).toBe(404)
  })

  it('runs a whole authorization code flow on the shared origin', async () => {
    const config = await oidc.dynamicClientRegistration(new URL(origin), { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
    const { verifier, challenge } = await pkcePair()
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1/cb',
      scope: 'mcp',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })
    const { callback } = await formLogin(url, { username: 'ivan', password: 'ivan password 1', redirectUri: 'http://127.0.0.1/cb' })
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })
    expect(tokens.access_token).toBeTypeOf('string')
  })

  it('shares the app with an MCP server: metadata and MCP on one origin', async () => {
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as { issuer: string }
    expect(metadata.issuer).toBe(origin)
    const client = new McpClient({ name: 'mounted-test', version: '1' })
    await connectHttp(client, `${origin}/mcp`)
    const result = await client.callTool('echo', { text: 'side by side' })
    expect(JSON.stringify(result.content)).toContain('side by side')
    await client.close()
  })
})
