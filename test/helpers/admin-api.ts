import * as oidc from 'openid-client'
import { formLogin, registerPublicClient, type CookieJar } from './form-login.js'
import { pkcePair } from './pkce-pair.js'

/** The admin API of a server whose issuer is `issuer` (no trailing slash). */
export const adminApiUrl = (issuer: string): string => `${issuer.replace(/\/$/, '')}/admin/api`

/**
 * An access token for the admin API, got as any client gets one: a public client registered by
 * DCR, PKCE through the real login and consent pages, `resource` the admin API. `scope` and
 * `resource` may be changed to try what the server refuses; `maxAge` asks for a fresh sign-in.
 */
export async function adminToken(
  issuer: string,
  user: { username: string; password: string },
  options: { scope?: string; resource?: string; jar?: CookieJar; maxAge?: number } = {},
): Promise<{ access_token: string; refresh_token?: string; scope?: string; config: oidc.Configuration }> {
  const redirectUri = 'http://127.0.0.1:9/callback'
  const config = await registerPublicClient(issuer, redirectUri)
  const { verifier, challenge } = await pkcePair()
  const resource = options.resource ?? adminApiUrl(issuer)
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: options.scope ?? 'mcp-auth:admin',
    resource,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(options.maxAge !== undefined ? { max_age: String(options.maxAge) } : {}),
  })
  const { callback } = await formLogin(url, { ...user, redirectUri, ...(options.jar !== undefined ? { jar: options.jar } : {}) })
  if (callback.searchParams.has('error')) throw new Error(`authorization refused: ${callback.searchParams.get('error')} ${callback.searchParams.get('error_description') ?? ''}`)
  const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, { resource, redirect_uri: redirectUri })
  return {
    access_token: tokens.access_token,
    ...(tokens.refresh_token !== undefined ? { refresh_token: tokens.refresh_token } : {}),
    ...(tokens.scope !== undefined ? { scope: tokens.scope } : {}),
    config,
  }
}

/** One admin API call: `path` under the API, JSON in and out. */
export async function adminCall(
  issuer: string,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${adminApiUrl(issuer)}${path}`, {
    method,
    headers: {
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) }
}
