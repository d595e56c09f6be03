import type { DpopSession, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client'

/**
 * The official SDK v2 client's OAuth provider, kept in memory, as a test's user would write one: a
 * public client with a loopback redirect URI; authorization URLs are collected for the test to
 * drive through the pages; with a `dpop` session the SDK uses DPoP (RFC 9449).
 */
export class MemoryProvider implements OAuthClientProvider {
  readonly authorizationUrls: URL[] = []
  readonly #redirectUri: string
  readonly #clientName: string
  readonly #dpop: DpopSession | undefined
  #client: StoredOAuthClientInformation | undefined
  #tokens: StoredOAuthTokens | undefined
  #verifier: string | undefined
  #discovery: OAuthDiscoveryState | undefined

  constructor(options: { redirectUri: string; clientName: string; dpop?: DpopSession }) {
    this.#redirectUri = options.redirectUri
    this.#clientName = options.clientName
    this.#dpop = options.dpop
    if (options.dpop !== undefined) this.dpop = () => this.#dpop
  }

  dpop?: () => DpopSession | undefined

  get redirectUrl(): string {
    return this.#redirectUri
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.#clientName,
      redirect_uris: [this.#redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }
  }
  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.#client
  }
  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.#client = info
  }
  tokens(): StoredOAuthTokens | undefined {
    return this.#tokens
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this.#tokens = tokens
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(url)
  }
  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier
  }
  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error('no code verifier saved')
    return this.#verifier
  }
  // kept beside the verifier, as the SDK asks: it then checks that the code is redeemed at the
  // authorization server the login started at (SEP-2352), and warns on stderr when it cannot
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery
  }
}
