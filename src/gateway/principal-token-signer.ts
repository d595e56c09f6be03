/** The claims of a principal token the gateway asks to have signed (`iss` is the signer's). */
export interface PrincipalTokenClaims {
  /** The upstream server's URL: the one audience that should accept the token. */
  aud: string
  sub?: string
  client_id: string
  /** The scopes of the caller's token (space-separated). */
  scope: string
  iat: number
  exp: number
  jti: string
}

/**
 * Signs principal tokens with the authorization server's keys (published at its JWKS): how the
 * gateway tells an upstream HTTP server whom a request is for, without passing the caller's token
 * on (MCP authorization forbids token passthrough). The composition root hands in our
 * authorization server's `signPrincipalToken`.
 */
export interface PrincipalTokenSigner {
  sign(claims: PrincipalTokenClaims): Promise<string>
}
