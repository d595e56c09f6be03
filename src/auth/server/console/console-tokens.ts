import type Provider from 'oidc-provider'
import { inject } from 'light-my-request'

/** Tokens the console holds for one signed-in person (sealed in their cookie). */
export interface ConsoleTokenSet {
  accessToken: string
  refreshToken?: string
  /** Epoch seconds. */
  expiresAt: number
}

/** The token endpoint refused (the code was used, the refresh token revoked, the account disabled). */
export class ConsoleTokenError extends Error {
  override name = 'ConsoleTokenError'
}

/**
 * The console's token requests, made in-process into oidc-provider's own handler with
 * light-my-request (fastify's request injection: a request built in memory, no socket): the whole
 * token pipeline runs (client authentication, PKCE, resource indicators, token policy), without a
 * network round trip to the server's public origin, which a node behind a load balancer, a NAT or
 * a TLS front may not reach.
 */
export class ConsoleTokens {
  readonly #provider: Provider
  readonly #issuer: URL
  readonly #client: { id: string; secret: string }

  constructor(deps: { provider: Provider; issuer: URL; clientId: string; clientSecret: string }) {
    this.#provider = deps.provider
    this.#issuer = deps.issuer
    this.#client = { id: deps.clientId, secret: deps.clientSecret }
  }

  /** Redeems an authorization code (RFC 6749 §4.1.3, with the PKCE verifier and the resource). */
  redeem(code: string, verifier: string, redirectUri: string, resource: string): Promise<ConsoleTokenSet> {
    return this.#request({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, resource })
  }

  /** A fresh access token for `resource` from the refresh token (rotated: the answer holds the next one). */
  refresh(refreshToken: string, resource: string): Promise<ConsoleTokenSet> {
    return this.#request({ grant_type: 'refresh_token', refresh_token: refreshToken, resource })
  }

  /** Revokes a refresh token (RFC 7009): oidc-provider ends its grant, and the grant's tokens with it. */
  async revoke(refreshToken: string): Promise<void> {
    await this.#post('revocation', { token: refreshToken, token_type_hint: 'refresh_token' })
  }

  async #post(endpoint: 'token' | 'revocation', params: Record<string, string>): Promise<{ status: number; body: string }> {
    const payload = new URLSearchParams({ ...params, client_id: this.#client.id, client_secret: this.#client.secret }).toString()
    const answer = await inject(this.#provider.callback(), {
      method: 'POST',
      url: this.#provider.pathFor(endpoint),
      headers: {
        host: this.#issuer.host,
        'x-forwarded-proto': this.#issuer.protocol.slice(0, -1),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      payload,
    })
    return { status: answer.statusCode, body: answer.payload }
  }

  async #request(params: Record<string, string>): Promise<ConsoleTokenSet> {
    const answer = await this.#post('token', params)
    const json = (() => {
      try {
        return JSON.parse(answer.body) as Record<string, unknown>
      } catch {
        return {}
      }
    })()
    if (answer.status !== 200 || typeof json['access_token'] !== 'string') {
      throw new ConsoleTokenError(
        `the token endpoint refused the console's ${params['grant_type']} request: ${String(json['error'] ?? answer.status)} ${String(json['error_description'] ?? '')}`.trim(),
      )
    }
    return {
      accessToken: json['access_token'],
      ...(typeof json['refresh_token'] === 'string' ? { refreshToken: json['refresh_token'] } : {}),
      expiresAt: Math.floor(Date.now() / 1000) + (typeof json['expires_in'] === 'number' ? json['expires_in'] : 60),
    }
  }
}
