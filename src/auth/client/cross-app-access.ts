import * as client from 'openid-client'
import { clientSecretBasic } from './client-secret-basic.js'
import { discoverAuthorization } from './discover.js'
import { clientConfiguration } from './client-configuration.js'

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange'
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag'
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token'

export interface CrossAppAccessOptions {
  /** The enterprise identity provider's token endpoint and issuer, and our client id there. */
  idpTokenEndpoint: string
  idpIssuer: string
  idpClientId: string
  /** The user's ID token from that identity provider. */
  idToken: string
  /** Our client at the MCP server's authorization server. */
  clientId: string
  clientSecret: string
  fetch?: typeof fetch
}

/**
 * Enterprise-managed authorization (SEP-990, cross-app access): the user's ID token is exchanged
 * at the enterprise IdP for an ID-JAG (RFC 8693 token exchange) naming the MCP server's
 * authorization server and resource, which then grants an access token (RFC 7523 JWT bearer).
 * No browser is involved. Returns the access token for the MCP server.
 */
export async function crossAppAccessToken(serverUrl: string, options: CrossAppAccessOptions): Promise<string> {
  const fetchImpl = options.fetch ?? globalThis.fetch
  const discovered = await discoverAuthorization(serverUrl, null, fetchImpl)
  const idp = clientConfiguration({ issuer: options.idpIssuer, token_endpoint: options.idpTokenEndpoint }, options.idpClientId, client.None(), fetchImpl, options.idpTokenEndpoint)
  const exchanged = await client.genericGrantRequest(idp, TOKEN_EXCHANGE, {
    requested_token_type: ID_JAG,
    audience: discovered.server.issuer,
    resource: discovered.resource,
    subject_token: options.idToken,
    subject_token_type: ID_TOKEN,
    client_id: options.idpClientId,
  })
  const as = clientConfiguration(discovered.server, options.clientId, clientSecretBasic(options.clientSecret), fetchImpl)
  const granted = await client.genericGrantRequest(as, JWT_BEARER, { assertion: exchanged.access_token })
  return granted.access_token
}
