/**
 * A trusted issuer whose discovery or keys cannot be fetched right now: its assertions are
 * refused (`invalid_grant`, RFC 7523 §3.1) until it answers again; other issuers are unaffected.
 */
export class IssuerUnavailableError extends Error {
  override name = 'IssuerUnavailableError'
  readonly issuer: string

  constructor(issuer: string, reason: string, options?: ErrorOptions) {
    super(`trusted issuer ${issuer} is unavailable: ${reason}`, options)
    this.issuer = issuer
  }
}
