import * as client from 'openid-client'
import { importPKCS8 } from 'jose'
import { clientSecretBasic } from './client-secret-basic.js'
import { MachineDpop, sendWithToken, type HeldToken } from './machine-token.js'
import { discoverAuthorization, type DiscoveredAuthorization } from './discover.js'
import { clientConfiguration } from './client-configuration.js'

export interface ClientCredentialsOptions {
  clientId: string
  /** client_secret_basic when set… */
  clientSecret?: string
  /** …or private_key_jwt with this PKCS#8 PEM key. */
  privateKeyPem?: string
  /** JWS algorithm of the assertion (default ES256). */
  algorithm?: string
  scope?: string
  fetch?: typeof fetch
}

/**
 * Machine-to-machine access: the client credentials grant (RFC 6749 §4.4) for an MCP server,
 * with a client secret or a private_key_jwt assertion (RFC 7523), discovery as for user logins,
 * `resource` bound to the server. `fetch` adds the token and gets a new one on 401. When the
 * authorization server lists our DPoP algorithm, tokens are DPoP-bound (RFC 9449) to a key this
 * instance makes and keeps in memory (a new instance gets new tokens anyway).
 */
export class ClientCredentialsAuth {
  readonly #serverUrl: string
  readonly #options: ClientCredentialsOptions
  readonly #fetch: typeof fetch
  #token: Promise<HeldToken> | undefined
  readonly #dpop = new MachineDpop()

  constructor(serverUrl: string, options: ClientCredentialsOptions) {
    this.#serverUrl = serverUrl
    this.#options = options
    this.#fetch = options.fetch ?? globalThis.fetch
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const send = (held: HeldToken | undefined): Promise<Response> => sendWithToken(this.#fetch, input, init, held)
    const first = await send(this.#token === undefined ? undefined : await this.#token.catch(() => undefined))
    if (first.status !== 401) return first
    const challenge = first.headers.get('www-authenticate')
    await first.body?.cancel()
    this.#token = this.#obtain(challenge)
    return send(await this.#token)
  }

  async #obtain(challenge: string | null): Promise<HeldToken> {
    const discovered: DiscoveredAuthorization = await discoverAuthorization(this.#serverUrl, challenge, this.#fetch)
    const { clientId, clientSecret, privateKeyPem, algorithm = 'ES256' } = this.#options
    const auth = privateKeyPem !== undefined ? client.PrivateKeyJwt(await importPKCS8(privateKeyPem, algorithm)) : clientSecretBasic(clientSecret ?? '')
    const config = clientConfiguration(discovered.server, clientId, auth, this.#fetch)
    const scope = this.#options.scope ?? discovered.scope
    const { key, options } = await this.#dpop.forRequest(discovered.server, config)
    const response = await client.clientCredentialsGrant(config, { resource: discovered.resource, ...(scope !== undefined ? { scope } : {}) }, options)
    return MachineDpop.held(response, key)
  }
}
