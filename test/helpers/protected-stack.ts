import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { createAuthorizationServer, type AuthorizationServer } from '../../src/auth/server/create-authorization-server.js'
import type { AuthorizationServerOptions } from '../../src/auth/server/options.js'
import { createProtectedMcpApp, type ProtectedMcpAppOptions } from '../../src/app/protected-mcp-app.js'
import { createDemoServer } from '../../src/demo/demo-server.js'
import { createIntrospectionVerifier } from '../../src/auth/resource/introspection-verifier.js'

export interface ProtectedStack {
  origin: string
  resource: string
  as: AuthorizationServer
  dataDir: string
  stop(): Promise<void>
}

/**
 * What `mcp-auth start` runs, in-process on an ephemeral 127.0.0.1 port: our authorization
 * server and the demo MCP server behind bearer tokens, on one origin.
 */
export async function startProtectedStack(
  options: {
    as?: Omit<AuthorizationServerOptions, 'issuer' | 'dataDir'>
    mcp?: Partial<ProtectedMcpAppOptions>
    /** Opaque access tokens for /mcp, verified by RFC 7662 introspection (no cache). */
    introspection?: boolean
  } = {},
): Promise<ProtectedStack> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-stack-'))
  let handler: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined
  const server: Server = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const as = await createAuthorizationServer({
    resources: [
      { uri: `${origin}/mcp`, scopes: ['mcp', 'mcp:admin'], ...(options.introspection ? { tokenFormat: 'opaque' as const } : {}) },
      { uri: `${origin}/other`, scopes: ['mcp'] },
    ],
    rateLimits: false,
    ...options.as,
    issuer: origin,
    dataDir,
  })
  as.provider.on('server_error', (_ctx: unknown, error: unknown) => console.error('server_error', error))
  await as.accounts.setUser('demo', 'demo password 1', { name: 'Demo User' }, ['mcp', 'mcp:admin'])
  let verifier: ProtectedMcpAppOptions['verifier']
  if (options.introspection) {
    const rs = await as.addClient({
      client_name: 'resource server',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
    })
    verifier = createIntrospectionVerifier({
      endpoint: `${origin}/token/introspection`,
      clientId: rs.client_id,
      clientSecret: rs.client_secret!,
      audience: `${origin}/mcp`,
      issuer: origin,
      cacheMs: 0,
    })
  }
  const mcp = createProtectedMcpApp(createDemoServer(), {
    ...(verifier ? { verifier } : {}),
    host: '127.0.0.1',
    origin,
    issuer: as.issuer,
    scopesSupported: ['mcp', 'mcp:admin'],
    requiredScopes: ['mcp'],
    toolScopes: { admin_stats: ['mcp:admin'] },
    resourceName: 'test stack',
    // As mcp-auth start does: the authorization server is in the same process.
    checkRevocation: as.revocationCheck,
    middleware: [as.middleware],
    ...options.mcp,
  })
  handler = mcp.handler
  return {
    origin,
    resource: mcp.resource,
    as,
    dataDir,
    async stop() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await mcp.close()
      await as.close()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
