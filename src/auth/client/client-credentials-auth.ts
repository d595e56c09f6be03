import * as client from 'openid-client'
import { importPKCS8 } from 'jose'
import { clientSecretBasic } from './client-secret-basic.js'
import { clientConfiguration } from './client-configuration.js'
import { MachineAuth, type MachineAuthOptions, type MachineTokenRequest } from './machine-auth.js'

export interface ClientCredentialsOptions extends MachineAuthOptions {
  clientId: string
  /** client_secret_basic when set… */
  clientSecret?: string
  /** …or private_key_jwt with this PKCS#8 PEM key. */
  privateKeyPem?: string
  /** JWS algorithm of the assertion (default ES256). */
  algorithm?: string
}

/**
 * Machine-to-machine access: the client credentials grant (RFC 6749 §4.4) for an MCP server,
 * with a client secret or a private_key_jwt assertion (RFC 7523), discovery as for user logins,
 * `resource` bound to the server. `fetch` adds the token and gets a new one on 401. Tokens are
 * DPoP-bound (RFC 9449) as the `dpop` option says (default: when the resource's metadata and the
 * authorization server both offer it), to a key this instance makes and keeps in memory, or the
 * token store's key when `store` keeps the tokens.
 *
 * @example
 * const auth = new ClientCredentialsAuth('https://mcp.example.com/mcp', { clientId: 'batch', clientSecret })
 * await client.connect(new StreamableHttpClientTransport(url, { fetch: auth.fetch }))
 */
export class ClientCredentialsAuth extends MachineAuth {
  readonly #options: ClientCredentialsOptions

  constructor(serverUrl: string, options: ClientCredentialsOptions) {
    super(serverUrl, options)
    this.#options = options
  }

  protected keptAs(): { grant: string; clientId: string } {
    return { grant: 'client_credentials', clientId: this.#options.clientId }
  }

  protected async configuration(server: client.ServerMetadata): Promise<client.Configuration> {
    const { clientId, clientSecret, privateKeyPem, algorithm = 'ES256' } = this.#options
    const auth = privateKeyPem !== undefined ? client.PrivateKeyJwt(await importPKCS8(privateKeyPem, algorithm)) : clientSecretBasic(clientSecret ?? '')
    return clientConfiguration(server, clientId, auth, this.fetchImpl)
  }

  protected request(config: client.Configuration, { discovered, scope, dpop }: MachineTokenRequest): Promise<client.TokenEndpointResponse> {
    return client.clientCredentialsGrant(config, { resource: discovered.resource, ...(scope !== undefined ? { scope } : {}) }, dpop)
  }
}
