import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { createAuthorizationServer, type AuthorizationServer } from '../../src/auth/server/create-authorization-server.js'
import type { AuthorizationServerOptions } from '../../src/auth/server/options.js'

export interface RunningAuthServer {
  as: AuthorizationServer
  /** http://127.0.0.1:<port> */
  origin: string
  issuer: string
  dataDir: string
  server: Server
  /** Stops the server; keeps the data directory unless `removeData`. */
  stop(removeData?: boolean): Promise<void>
}

/**
 * Starts an authorization server on an ephemeral 127.0.0.1 port. The issuer is only known once
 * the port is, so the HTTP server listens first and gets its handler after.
 */
export async function startAuthServer(
  options: Omit<AuthorizationServerOptions, 'issuer'> & { issuerPath?: string; dataDir?: string; port?: number; hostname?: string } = {},
): Promise<RunningAuthServer> {
  const { issuerPath = '', port = 0, hostname = '127.0.0.1', ...rest } = options
  const dataDir = rest.dataDir ?? (await mkdtemp(join(tmpdir(), 'mcp-auth-as-')))
  let handler: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined
  const server = createServer((req, res) => {
    if (handler === undefined) {
      res.statusCode = 503
      res.end()
      return
    }
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  // Listening on 127.0.0.1 always; `hostname: 'localhost'` gives a second host name, as a browser would see another site.
  const origin = `http://${hostname}:${(server.address() as AddressInfo).port}`
  const as = await createAuthorizationServer({
    resources: [{ uri: `${origin}/mcp`, scopes: ['mcp', 'mcp:admin'] }],
    // Tests log in far more often than a person would; the rate-limit tests pass their own limits.
    rateLimits: { loginPerAccount: 10_000, loginPerAddress: 10_000, registrationPerAddress: 10_000 },
    ...rest,
    dataDir,
    issuer: `${origin}${issuerPath}`,
  })
  as.provider.on('server_error', (_ctx: unknown, error: unknown) => console.error('server_error', error))
  handler = as.app.callback()
  return {
    as,
    origin,
    issuer: as.issuer,
    dataDir,
    server,
    async stop(removeData = false) {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await as.close()
      if (removeData) await rm(dataDir, { recursive: true, force: true })
    },
  }
}
