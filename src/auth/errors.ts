/**
 * The OAuth error family for mcp-auth's own HTTP surfaces (the bearer middleware, the pages and
 * endpoints we add beside oidc-provider). Each error carries its wire code (`error`), the HTTP
 * status, whether its description may be shown (`expose`, as http-errors does), and optional
 * parameters for a `WWW-Authenticate` challenge.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export class OAuthError extends Error {
  readonly error: string
  readonly status: number
  readonly expose: boolean
  /** Extra `WWW-Authenticate` / body parameters (e.g. `scope` for insufficient_scope). */
  readonly params: Readonly<Record<string, string>>
  /** Headers the response must carry (e.g. Retry-After). */
  readonly headers: Readonly<Record<string, string>>

  constructor(error: string, status: number, description: string, options?: ErrorOptions & { params?: Record<string, string>; headers?: Record<string, string> }) {
    super(description, options)
    this.name = new.target.name
    this.error = error
    this.status = status
    this.expose = status < 500
    this.params = options?.params ?? {}
    this.headers = options?.headers ?? {}
  }

  /** The RFC 6749 §5.2 JSON body. */
  toJSON(): Record<string, string> {
    return { error: this.error, ...(this.expose ? { error_description: this.message } : {}), ...this.params }
  }
}

/** 400 invalid_request: a malformed request. */
export class InvalidRequestError extends OAuthError {
  constructor(description: string, options?: ErrorOptions) {
    super('invalid_request', 400, description, options)
  }
}

/** 401 invalid_token (RFC 6750 §3.1): missing, expired, revoked or malformed token. */
export class InvalidTokenError extends OAuthError {
  constructor(description: string, options?: ErrorOptions) {
    super('invalid_token', 401, description, options)
  }
}

/** 403 insufficient_scope (RFC 6750 §3.1), naming the scope that would suffice. */
export class InsufficientScopeError extends OAuthError {
  constructor(description: string, scope: string, options?: ErrorOptions) {
    super('insufficient_scope', 403, description, { ...options, params: { scope } })
  }
}

/** 403 access_denied: the user or policy refused. */
export class AccessDeniedError extends OAuthError {
  constructor(description: string, options?: ErrorOptions) {
    super('access_denied', 403, description, options)
  }
}

/** 429 with Retry-After: a rate limit was hit. */
export class TooManyRequestsError extends OAuthError {
  constructor(retryAfterSeconds: number, options?: ErrorOptions) {
    super('slow_down', 429, 'too many requests, retry later', {
      ...options,
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    })
  }
}

/** 413 invalid_request: a request body over the endpoint's limit. */
export class PayloadTooLargeError extends OAuthError {
  constructor(description = 'request body too large', options?: ErrorOptions) {
    super('invalid_request', 413, description, options)
  }
}

/** 503 temporarily_unavailable: a dependency (e.g. an upstream provider) is down. */
export class TemporarilyUnavailableError extends OAuthError {
  /** Said to the client: what is away and when to come back, never an internal detail. */
  override readonly expose = true

  constructor(description: string, options?: ErrorOptions & { headers?: Record<string, string> }) {
    super('temporarily_unavailable', 503, description, options)
  }
}

/**
 * 401 invalid_dpop_proof (RFC 9449 §7.1): the DPoP proof is missing, malformed, or does not match
 * the request, the token or the key. Answered with a `DPoP` challenge.
 */
export class InvalidDpopProofError extends OAuthError {
  constructor(description: string, options?: ErrorOptions) {
    super('invalid_dpop_proof', 401, description, options)
  }
}

/** 401 use_dpop_nonce (RFC 9449 §9): retry with the nonce in the `DPoP-Nonce` header. */
export class UseDpopNonceError extends OAuthError {
  constructor(nonce: string, description = 'the DPoP proof must carry the server nonce given in DPoP-Nonce', options?: ErrorOptions) {
    super('use_dpop_nonce', 401, description, { ...options, headers: { 'dpop-nonce': nonce } })
  }
}

/**
 * 401 insufficient_user_authentication (RFC 9470 §3): the token comes from a sign-in older than
 * the action allows; the client signs the person in again with `max_age` and retries.
 */
export class InsufficientUserAuthenticationError extends OAuthError {
  constructor(description: string, maxAgeSeconds: number, options?: ErrorOptions) {
    super('insufficient_user_authentication', 401, description, { ...options, params: { max_age: String(maxAgeSeconds) } })
  }
}
