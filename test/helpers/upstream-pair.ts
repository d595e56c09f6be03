import { ConsentStore } from '../../src/auth/server/stores/consent-store.js'
import type { AuthorizationServerOptions } from '../../src/auth/server/options.js'
import { startAuthServer, type RunningAuthServer } from './auth-server.js'
import { startProtectedStack, type ProtectedStack } from './protected-stack.js'
import { storeContents } from './store-contents.js'

/**
 * An upstream identity provider (a second instance of our authorization server: oidc-provider
 * with its own accounts and pages) and our stack delegating login to it, our AS registered there
 * as a confidential client.
 */
export async function startUpstreamPair(options: {
  user: { username: string; password: string; claims?: Record<string, unknown> }
  upstream?: Omit<AuthorizationServerOptions, 'issuer'>
  scopes?: string[]
  /** How our AS authenticates at the upstream token endpoint (default a client secret). */
  clientAuth?: 'client_secret_basic' | 'private_key_jwt'
  /** Configure the upstream's endpoints instead of discovering them. */
  noDiscovery?: boolean
  /** Our AS's `upstream.accountScopes`. */
  accountScopes?: { claim: string; map: Record<string, string[]>; default?: string[] }
}): Promise<{ upstream: RunningAuthServer; stack: ProtectedStack; upstreamUserId: string; stop(): Promise<void> }> {
  // Another host name than ours (localhost vs 127.0.0.1): browsers keep the two servers' cookies apart.
  const upstream = await startAuthServer({ hostname: 'localhost', ...options.upstream })
  const user = await upstream.as.accounts.setUser(options.user.username, options.user.password, options.user.claims ?? {})
  const secret = 'our-as-secret-0123456789'
  let privateKeyPem: string | undefined
  let publicJwk: Record<string, unknown> | undefined
  if (options.clientAuth === 'private_key_jwt') {
    const { generateKeyPair, exportPKCS8, exportJWK } = await import('jose')
    const pair = await generateKeyPair('ES256', { extractable: true })
    privateKeyPem = await exportPKCS8(pair.privateKey)
    publicJwk = { ...(await exportJWK(pair.publicKey)), alg: 'ES256', use: 'sig' }
  }
  const stack = await startProtectedStack({
    as: {
      upstream: {
        issuer: upstream.issuer,
        // the test's upstream provider is on 127.0.0.1
        allowPrivateAddresses: true,
        clientId: 'our-as',
        ...(privateKeyPem !== undefined ? { privateKeyPem, privateKeyAlg: 'ES256' } : { clientSecret: secret }),
        ...(options.scopes ? { scopes: options.scopes } : {}),
        ...(options.accountScopes ? { accountScopes: options.accountScopes } : {}),
        ...(options.noDiscovery
          ? {
              endpoints: {
                authorization_endpoint: `${upstream.issuer}/authorize`,
                token_endpoint: `${upstream.issuer}/token`,
                jwks_uri: `${upstream.issuer}/jwks`,
                revocation_endpoint: `${upstream.issuer}/token/revocation`,
              },
            }
          : {}),
      },
    },
  })
  await upstream.as.addClient({
    client_id: 'our-as',
    redirect_uris: [`${stack.origin}/upstream/callback`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...(publicJwk !== undefined
      ? { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJwk] } }
      : { token_endpoint_auth_method: 'client_secret_basic', client_secret: secret }),
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

/**
 * Counts the refresh tokens the upstream holds for the session our authorization server opened
 * there for `upstreamUserId` (read from its data file, as an operator would). The session is
 * the one open now; the count follows it after it ends.
 */
export async function upstreamRefreshTokenCount(pair: { upstream: RunningAuthServer; upstreamUserId: string }): Promise<() => Promise<number>> {
  const upstreamGrant = (await new ConsentStore(pair.upstream.as.storage.records).grantIdFor(pair.upstreamUserId, 'our-as'))!
  return async () => {
    const data = await storeContents(pair.upstream.dataDir)
    return Object.values(data.models['RefreshToken'] ?? {}).filter((record) => record.payload.grantId === upstreamGrant).length
  }
}
