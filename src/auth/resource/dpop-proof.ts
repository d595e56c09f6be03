import { constants, createHash, createPublicKey, verify, type KeyObject, type VerifyKeyObjectInput } from 'node:crypto'
import { defaults } from '../../config/defaults.js'
import { InvalidDpopProofError } from '../errors.js'
import { BoundedMap } from '../../collections/bounded-map.js'

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

/** How each accepted JWS algorithm verifies with node:crypto, and the key it needs. */
const ALGORITHMS: Readonly<Record<string, { digest: string | null; kty: string; curve?: string; options?: Omit<VerifyKeyObjectInput, 'key'> }>> = {
  ES256: { digest: 'sha256', kty: 'ec', curve: 'prime256v1', options: { dsaEncoding: 'ieee-p1363' } },
  ES384: { digest: 'sha384', kty: 'ec', curve: 'secp384r1', options: { dsaEncoding: 'ieee-p1363' } },
  ES512: { digest: 'sha512', kty: 'ec', curve: 'secp521r1', options: { dsaEncoding: 'ieee-p1363' } },
  RS256: { digest: 'sha256', kty: 'rsa', options: { padding: constants.RSA_PKCS1_PADDING } },
  RS384: { digest: 'sha384', kty: 'rsa', options: { padding: constants.RSA_PKCS1_PADDING } },
  RS512: { digest: 'sha512', kty: 'rsa', options: { padding: constants.RSA_PKCS1_PADDING } },
  PS256: { digest: 'sha256', kty: 'rsa', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } },
  PS384: { digest: 'sha384', kty: 'rsa', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 } },
  PS512: { digest: 'sha512', kty: 'rsa', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 } },
  EdDSA: { digest: null, kty: 'okp' },
}

/** The members RFC 7638 hashes, per key type, in its (lexicographic) order. */
const THUMBPRINT_MEMBERS: Readonly<Record<string, readonly string[]>> = { EC: ['crv', 'kty', 'x', 'y'], RSA: ['e', 'kty', 'n'], OKP: ['crv', 'kty', 'x'] }
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth']

interface ProofKey {
  key: KeyObject
  jkt: string
}

/**
 * Client keys seen recently, by their RFC 7638 thumbprint input: a client proves with the same key
 * on every request, and importing a key costs more than verifying a signature. Bounded (the
 * oldest forgotten first); an entry is only a parsed public key, so a forgotten one costs a
 * re-import, nothing else.
 */
const MAX_KEYS = 10_000
const keys = new BoundedMap<string, ProofKey>(MAX_KEYS, { evictBeforeSet: true })

function proofKey(jwk: unknown): ProofKey {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new InvalidDpopProofError('the DPoP proof needs a public jwk in its header')
  const members = jwk as Record<string, unknown>
  if (PRIVATE_MEMBERS.some((name) => members[name] !== undefined)) throw new InvalidDpopProofError('the DPoP proof needs a public jwk in its header, not a private key')
  const kty = members['kty']
  // own members only: a kty of "constructor" or "__proto__" names no key type
  const names = typeof kty === 'string' && Object.hasOwn(THUMBPRINT_MEMBERS, kty) ? THUMBPRINT_MEMBERS[kty] : undefined
  if (names === undefined || names.some((name) => typeof members[name] !== 'string')) throw new InvalidDpopProofError('the DPoP proof needs a public jwk in its header')
  // RFC 7638: the required members only, in order, no whitespace
  const canonical = `{${names.map((name) => `${JSON.stringify(name)}:${JSON.stringify(members[name])}`).join(',')}}`
  let found = keys.get(canonical)
  if (found === undefined) {
    let key: KeyObject
    try {
      key = createPublicKey({ key: JSON.parse(canonical) as import('node:crypto').JsonWebKey, format: 'jwk' })
    } catch {
      throw new InvalidDpopProofError('the DPoP proof needs a public jwk in its header')
    }
    found = { key, jkt: createHash('sha256').update(canonical).digest('base64url') }
    keys.set(canonical, found)
  }
  return found
}

function decodeJson(part: string, what: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
  } catch {
    throw new InvalidDpopProofError(`the DPoP proof ${what} is not base64url JSON`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidDpopProofError(`the DPoP proof ${what} is not a JSON object`)
  return value as Record<string, unknown>
}

const BASE64URL = /^[A-Za-z0-9_-]*$/

/**
 * Checks one DPoP proof (RFC 9449 §4.3) at a resource server: a single `dpop+jwt` signed with an
 * allowed asymmetric algorithm by the public `jwk` in its header, `htm`/`htu` of this request,
 * `iat` within the window, `ath` of the presented token. Replay (`jti`), the nonce and the
 * binding to the token's `cnf.jkt` are the caller's, with what this returns. Throws
 * {@link InvalidDpopProofError} with a description that never echoes the proof.
 *
 * The signature is checked with node:crypto and the client's key kept parsed between requests
 * (RFC 7638 thumbprint input as the key): one signature verification per request, nothing more
 * (bench/dpop.mjs measures it; Web Crypto through jose and a key import per proof cost four times
 * as much). Only the algorithms in the table are known; the key must be of the algorithm's type
 * (and curve), never a symmetric or private key.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-4.3
 */
export async function verifyDpopProof(check: DpopProofCheck): Promise<VerifiedDpopProof> {
  const { proof } = check
  if (proof === undefined || proof === '') throw new InvalidDpopProofError('a DPoP-bound access token needs a DPoP proof in the DPoP header')
  if (Array.isArray(proof) || proof.includes(',')) throw new InvalidDpopProofError('exactly one DPoP header is allowed')
  if (proof.length > defaults.resourceServer.dpop.maxProofBytes) throw new InvalidDpopProofError('the DPoP proof is too large')
  const parts = proof.split('.')
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) throw new InvalidDpopProofError('the DPoP proof is not a JWT')
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string]
  const header = decodeJson(encodedHeader, 'header')
  if (header['typ'] !== 'dpop+jwt') throw new InvalidDpopProofError('the DPoP proof must have typ dpop+jwt')
  const alg = header['alg']
  const algorithm = typeof alg === 'string' && check.algorithms.includes(alg) ? ALGORITHMS[alg] : undefined
  if (algorithm === undefined) throw new InvalidDpopProofError('the DPoP proof uses an algorithm this server does not accept')
  if (header['crit'] !== undefined) throw new InvalidDpopProofError('the DPoP proof has critical header parameters this server does not know')
  const { key, jkt } = proofKey(header['jwk'])
  const details = key.asymmetricKeyDetails
  if (key.asymmetricKeyType === undefined || (algorithm.kty === 'okp' ? !['ed25519', 'ed448'].includes(key.asymmetricKeyType) : key.asymmetricKeyType !== algorithm.kty)) {
    throw new InvalidDpopProofError('the DPoP proof key does not fit its algorithm')
  }
  if (algorithm.curve !== undefined && details?.namedCurve !== algorithm.curve) throw new InvalidDpopProofError('the DPoP proof key does not fit its algorithm')
  if (algorithm.kty === 'rsa' && (details?.modulusLength ?? 0) < 2048) throw new InvalidDpopProofError('the DPoP proof key is too short (RSA needs 2048 bits)')
  const signed = Buffer.from(`${encodedHeader}.${encodedPayload}`)
  if (!verify(algorithm.digest, signed, { key, ...algorithm.options }, Buffer.from(encodedSignature, 'base64url'))) {
    throw new InvalidDpopProofError('the DPoP proof signature is invalid')
  }
  const payload = decodeJson(encodedPayload, 'payload')
  const { jti, htm, htu, iat, ath, nonce } = payload
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI) throw new InvalidDpopProofError('the DPoP proof needs a jti of at most 256 characters')
  if (htm !== check.method) throw new InvalidDpopProofError('the DPoP proof was made for another HTTP method (htm)')
  const presented = typeof htu === 'string' ? normalizeHtu(htu) : undefined
  if (presented === undefined || presented !== normalizeHtu(check.url)) {
    throw new InvalidDpopProofError('the DPoP proof was made for another URI (htu)')
  }
  if (typeof iat !== 'number' || !Number.isFinite(iat) || Math.abs(check.now / 1000 - iat) > check.iatWindowSeconds) {
    throw new InvalidDpopProofError('the DPoP proof is too old or from the future (iat)')
  }
  if (typeof ath !== 'string' || ath !== accessTokenHash(check.accessToken)) throw new InvalidDpopProofError('the DPoP proof does not cover this access token (ath)')
  if (nonce !== undefined && typeof nonce !== 'string') throw new InvalidDpopProofError('the DPoP proof nonce must be a string')
  return { jkt, jti, iat, nonce }
}
