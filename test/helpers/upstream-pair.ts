import type { AuthorizationServerOptions } from '../../src/auth/server/options.js'
import { startAuthServer, type RunningAuthServer } from './auth-server.js'
import { startProtectedStack, type ProtectedStack } from './protected-stack.js'

/**
 * An upstream identity provider (a second instance of our authorization server: oidc-provider
 * with its own accounts and pages) and our stack delegating login to it, our AS registered there
 * as a confidential client.
 */
export async function startUpstreamPair(options: {
  user: { username: string; password: string; claims?: Record<string, unknown> }
  upstream?: Omit<AuthorizationServerOptions, 'issuer'>
  scopes?: string[]
}): Promise<{ upstream: RunningAuthServer; stack: ProtectedStack; upstreamUserId: string; stop(): Promise<void> }> {
  const upstream = await startAuthServer(options.upstream ?? {})
  const user = await upstream.as.accounts.setUser(options.user.username, options.user.password, options.user.claims ?? {})
  const credentials = { clientId: 'our-as', clientSecret: 'our-as-secret-0123456789' }
  const stack = await startProtectedStack({
    as: { upstream: { issuer: upstream.issuer, ...credentials, ...(options.scopes ? { scopes: options.scopes } : {}) } },
  })
  await upstream.as.addClient({
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
    redirect_uris: [`${stack.origin}/upstream/callback`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  })
  return {
    upstream,
    stack,
    upstreamUserId: user.id,
    async stop() {
      await stack.stop()
      await upstream.stop(true)
    },
  }
}
