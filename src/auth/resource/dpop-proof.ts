import { createHash } from 'node:crypto'
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, errors as joseErrors, jwtVerify, type JWK } from 'jose'
import { defaults } from '../../config/defaults.js'
import { InvalidDpopProofError } from '../errors.js'

/** What {@link verifyDpopProof} checks a proof against: the request it came with and the token it goes with. */
export interface DpopProofCheck {
  /** The proof: the request's `DPoP` header, exactly one. */
  proof: string | string[] | undefined
  /** The request's method. */
  method: string
  /** The URI the client addressed: public origin and path (query and fragment are ignored). */
  url: string
  /** The access token the proof must cover (`ath`). */
  accessToken: string
  /** Accepted JWS algorithms (asymmetric only). */
  algorithms: readonly string[]
  /** How far (seconds) `iat` may lie from now. */
  iatWindowSeconds: number
  /** Now, in ms. */
  now: number
}

/** A proof that passed: its key's thumbprint (RFC 7638), its `jti`, its `iat` and its `nonce` if any. */
export interface VerifiedDpopProof {
  jkt: string
  jti: string
  iat: number
  nonce: string | undefined
}

/** `ath`: base64url of the SHA-256 of the access token's ASCII (RFC 9449 §4.2). */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url')
}

/**
 * The request URI as RFC 9449 §4.3 compares it: scheme and host normalised (case, default port),
 * the path as the URL parser gives it, no query, no fragment. Undefined when it is not a URL.
 */
export function normalizeHtu(value: string): string | undefined {
  try {
    const url = new URL(value)
    return `${url.protocol}//${url.host}${url.pathname}`
  } catch {
    return undefined
  }
}

const MAX_JTI = 256

/**
 * Checks one DPoP proof (RFC 9449 §4.3) at a resource server: a single `dpop+jwt` signed with an
 * allowed asymmetric algorithm by the public `jwk` in its header, `htm`/`htu` of this request,
 * `iat` within the window, `ath` of the presented token. Replay (`jti`), the nonce and the
 * binding to the token's `cnf.jkt` are the caller's, with what this returns. Throws
 * {@link InvalidDpopProofError} with a description that never echoes the proof.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-4.3
 */
export async function verifyDpopProof(check: DpopProofCheck): Promise<VerifiedDpopProof> {
  const { proof } = check
  if (proof === undefined || proof === '') throw new InvalidDpopProofError('a DPoP-bound access token needs a DPoP proof in the DPoP header')
  if (Array.isArray(proof) || proof.includes(',')) throw new InvalidDpopProofError('exactly one DPoP header is allowed')
  if (proof.length > defaults.resourceServer.dpop.maxProofBytes) throw new InvalidDpopProofError('the DPoP proof is too large')
  let alg: string | undefined
  try {
    ;({ alg } = decodeProtectedHeader(proof))
  } catch {
    throw new InvalidDpopProofError('the DPoP proof is not a JWT')
  }
  if (alg === undefined || !check.algorithms.includes(alg)) throw new InvalidDpopProofError('the DPoP proof uses an algorithm this server does not accept')
  let payload: Record<string, unknown>
  let jwk: JWK
  try {
    const verified = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...check.algorithms], requiredClaims: ['jti', 'htm', 'htu', 'iat'] })
    payload = verified.payload
    jwk = verified.protectedHeader.jwk!
  } catch (error) {
    throw new InvalidDpopProofError(describe(error), { cause: error })
  }
  const { jti, htm, htu, iat, ath, nonce } = payload
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI) throw new InvalidDpopProofError('the DPoP proof needs a jti of at most 256 characters')
  if (htm !== check.method) throw new InvalidDpopProofError('the DPoP proof was made for another HTTP method (htm)')
  if (typeof htu !== 'string' || normalizeHtu(htu) === undefined || normalizeHtu(htu) !== normalizeHtu(check.url)) {
    throw new InvalidDpopProofError('the DPoP proof was made for another URI (htu)')
  }
  if (typeof iat !== 'number' || Math.abs(check.now / 1000 - iat) > check.iatWindowSeconds) {
    throw new InvalidDpopProofError('the DPoP proof is too old or from the future (iat)')
  }
  if (typeof ath !== 'string' || ath !== accessTokenHash(check.accessToken)) throw new InvalidDpopProofError('the DPoP proof does not cover this access token (ath)')
  if (nonce !== undefined && typeof nonce !== 'string') throw new InvalidDpopProofError('the DPoP proof nonce must be a string')
  return { jkt: await calculateJwkThumbprint(jwk, 'sha256'), jti, iat, nonce }
}

function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'typ') return 'the DPoP proof must have typ dpop+jwt'
    return `the DPoP proof is missing or has an invalid ${error.claim} claim`
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'the DPoP proof uses an algorithm this server does not accept'
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the DPoP proof signature is invalid'
  if (error instanceof joseErrors.JWSInvalid) return 'the DPoP proof needs a public jwk in its header'
  return 'the DPoP proof is malformed'
}
