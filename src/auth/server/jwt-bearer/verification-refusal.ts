import { errors as joseErrors } from 'jose'
import { IssuerUnavailableError } from './issuer-unavailable-error.js'

/** Why an assertion did not verify: the `error_description` the client gets, and what only the server's log adds. */
export interface VerificationRefusal {
  description: string
  detail?: string
}

/**
 * The check an assertion failed in jwtVerify (its issuer's keys, signature, audience, lifetime,
 * algorithm, form), said so a workload's operator knows what to fix; claims are named, never
 * their values. RFC 7523 §3.1 and RFC 6749 §5.2 leave the token endpoint `invalid_grant` for an
 * assertion that cannot be verified (temporarily_unavailable is an authorization endpoint code):
 * an issuer that cannot be reached is said to be so, with "try again later" when waiting helps,
 * and the setting to change when the server refused its private address. What failed in a fetch,
 * or an unexpected error, goes to the log only (`detail`).
 */
export function verificationRefusal(error: unknown): VerificationRefusal {
  if (error instanceof IssuerUnavailableError) {
    if (error.privateAddress) {
      return {
        description: `the assertion's issuer ${error.issuer} cannot be verified: its keys are on a private or loopback address, which this server fetches only when the issuer's entry in jwtBearer.issuers sets allowPrivateAddresses: true`,
        detail: error.message,
      }
    }
    return { description: `the assertion's issuer ${error.issuer} is unavailable right now (its metadata or keys cannot be fetched); try again later`, detail: error.message }
  }
  if (error instanceof joseErrors.JWTExpired) return { description: 'the assertion has expired' }
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return { description: 'the assertion is for another audience' }
    if (error.claim === 'nbf') return { description: 'the assertion is not valid yet' }
    return { description: `the assertion's ${error.claim} claim is missing or invalid` }
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return { description: 'the assertion uses an algorithm this server does not accept' }
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return { description: 'the assertion signature does not verify with its issuer keys' }
  }
  if (error instanceof joseErrors.JWKSInvalid) return { description: "the assertion's issuer publishes keys that are not a valid JWK set", detail: error.message }
  if (error instanceof joseErrors.JOSENotSupported) return { description: "the assertion's algorithm or its issuer's key type is not supported", detail: error.message }
  if (error instanceof joseErrors.JWSInvalid || error instanceof joseErrors.JWTInvalid)
    return { description: 'the assertion is not a well-formed signed JWT', detail: error.message }
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return { description: 'the assertion could not be verified (the server log says why)', detail: detail.replace(/\s+/g, ' ') }
}
