/**
 * A trusted issuer whose discovery or keys cannot be fetched right now: its assertions are
 * refused (`invalid_grant`, RFC 7523 §3.1) until it answers again; other issuers are unaffected.
 * `privateAddress`: the fetch was refused before connecting, because the issuer's discovery or
 * keys are on a private or loopback address and its entry does not set `allowPrivateAddresses`
 * (waiting does not help: the configuration must change).
 */
export class IssuerUnavailableError extends Error {
  override name = 'IssuerUnavailableError'
  readonly issuer: string
  readonly privateAddress: boolean

  constructor(issuer: string, reason: string, options?: ErrorOptions & { privateAddress?: boolean }) {
    super(`trusted issuer ${issuer} is unavailable: ${reason}`, options)
    this.issuer = issuer
    this.privateAddress = options?.privateAddress === true
  }
}

/** Whether a fetch failure is the outbound guard refusing a private or special-use address (see guardedFetch). */
export function addressRefused(failure: string): boolean {
  return failure.includes('a private or special-use address: refused')
}
