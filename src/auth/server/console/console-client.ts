import { defaults } from '../../../config/defaults.js'

const a = defaults.authServer.admin

/** Where the console's and people's page's sign-ins come back (`/admin/callback`, `/account/callback`). */
export function consoleRedirectUris(issuer: URL, mountPath = ''): { admin: string; account: string } {
  const origin = issuer.origin
  return { admin: `${origin}${mountPath}${a.consolePath}/callback`, account: `${origin}${mountPath}${a.accountPath}/callback` }
}

/**
 * The console as a client of its own server: confidential (its secret derived from the data key,
 * so every node holds the same one and nothing is stored), code + PKCE with refresh, coming back
 * only to the console's and people's page's callbacks. Added to the configured clients by the
 * server itself: listed as configured, never removed by an administrator.
 */
export function consoleClient(issuer: URL, mountPath: string, secret: Buffer): Record<string, unknown> & { client_id: string } {
  const uris = consoleRedirectUris(issuer, mountPath)
  return {
    client_id: a.console.clientId,
    client_secret: secret.toString('base64url'),
    client_name: 'Administration console (built in)',
    redirect_uris: [uris.admin, uris.account],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
  }
}
