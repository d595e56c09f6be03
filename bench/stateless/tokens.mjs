// The ES256 key pair and RFC 9068 access tokens of the protected 2026-07-28 benchmark, made as
// bench/protected-http.mjs makes them: the private key stays in this process, the servers get
// the public JWKS on their command line (no network), and a token is minted per server start
// since its audience is the server's resource URI, which holds the port.
import { exportJWK, generateKeyPair, SignJWT } from 'jose'

export const ISSUER = 'https://as.bench.invalid'
const KID = 'bench-es256'

/** A fresh key pair: `jwks` (JSON text) for the servers, `mint(resource)` for the client. */
export async function benchKeys() {
  const { privateKey, publicKey } = await generateKeyPair('ES256')
  const stranger = (await generateKeyPair('ES256')).privateKey
  const sign = (resource, key, claims = {}) => {
    const now = Math.floor(Date.now() / 1000)
    return new SignJWT({ client_id: 'bench-client', scope: 'mcp', ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: KID })
      .setIssuer(ISSUER)
      .setAudience(resource)
      .setSubject('bench-user')
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(key)
  }
  return {
    jwks: JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: KID, alg: 'ES256', use: 'sig' }] }),
    /** An access token for `resource`, valid for an hour (more claims, e.g. `cnf`, when given). */
    mint: (resource, claims) => sign(resource, privateKey, claims),
    /** The same token signed by a key the servers do not know: they must refuse it. */
    mintForged: (resource) => sign(resource, stranger),
  }
}
