import { importJWK, SignJWT } from 'jose'
import type { PrivateJwk } from './signing-keys.js'

/**
 * The JOSE `typ` of a principal token. Explicit typing (RFC 8725 §3.11): the token is signed with
 * the keys that sign our access tokens (`typ: at+jwt`, RFC 9068 §2.1), and a distinct type keeps
 * it from ever being taken for one, by us or by any verifier of our JWKS that checks `typ`.
 */
export const PRINCIPAL_TOKEN_TYPE = 'mcp-principal+jwt'

/**
 * Signs the claims a gateway sends an upstream server about whom a request is for, with the
 * authorization server's current signing key for `alg` (published at its JWKS), `iss` set to the
 * issuer. The caller sets `aud`, `sub`, `exp` and the rest; the signer adds no lifetime of its own.
 *
 * @example
 * const signer = principalTokenSigner(keys, 'https://as.example', 'ES256')
 * await signer.sign({ aud: 'http://127.0.0.1:9000/mcp', sub: 'alice', iat, exp, jti })
 * @see https://www.rfc-editor.org/rfc/rfc7519#section-4.1
 */
export function principalTokenSigner(keys: readonly PrivateJwk[], issuer: string, alg: string): { sign(claims: Record<string, unknown>): Promise<string> } {
  const jwk = keys.find((key) => key.alg === alg)
  if (jwk === undefined) throw new Error(`no ${alg} signing key to sign principal tokens with`)
  const key = importJWK(jwk, alg)
  return {
    async sign(claims) {
      return new SignJWT({ ...claims, iss: issuer }).setProtectedHeader({ alg, kid: jwk.kid, typ: PRINCIPAL_TOKEN_TYPE }).sign(await key)
    },
  }
}
