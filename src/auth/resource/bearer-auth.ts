import type { AuthInfo } from '../../protocol/context.js'
import { InsufficientScopeError, InvalidRequestError, InvalidTokenError, OAuthError } from '../errors.js'
import type { TokenVerifier } from './token-verifier.js'
import { bearerChallenge } from './www-authenticate.js'

export interface BearerAuthOptions {
  verifier: TokenVerifier
  /** URL of this resource's RFC 9728 metadata, sent in every challenge as `resource_metadata`. */
  resourceMetadataUrl: string
  /** Scopes every request needs (default none beyond a valid token). */
  requiredScopes?: readonly string[]
  /** Extra scopes per tool name, checked on `tools/call`. */
  toolScopes?: Readonly<Record<string, readonly string[]>>
}

/** The parts of an HTTP request the bearer check reads. */
export interface BearerRequest {
  method: string
  url: URL
  headers: Readonly<Record<string, string | string[] | undefined>>
}

/** An error answer: status, headers (WWW-Authenticate…) and an RFC 6749 §5.2 JSON body. */
export interface BearerErrorResponse {
  status: number
  headers: Record<string, string>
  body: Record<string, string>
}

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value)

/**
 * The resource-server check, framework-neutral (RFC 6750): the token only from the
 * `Authorization` header; a token in the query string or a form body is refused. The verifier
 * checks signature, issuer, audience and expiry; this checks scopes, for the endpoint and per tool.
 * Adapters (Koa, node:http) turn a thrown {@link OAuthError} into {@link errorResponse}.
 *
 * @example
 * const auth = new BearerAuth({ verifier, resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp' })
 * const info = await auth.authenticate({ method: 'POST', url, headers })
 */
export class BearerAuth {
  readonly #options: BearerAuthOptions

  constructor(options: BearerAuthOptions) {
    this.#options = options
  }

  get hasToolScopes(): boolean {
    return this.#options.toolScopes !== undefined && Object.keys(this.#options.toolScopes).length > 0
  }

  async authenticate(request: BearerRequest): Promise<AuthInfo> {
    if (request.url.searchParams.has('access_token')) {
      throw new InvalidRequestError('access tokens are accepted in the Authorization header only, never in the URL')
    }
    const contentType = first(request.headers['content-type']) ?? ''
    const authorization = first(request.headers['authorization'])
    if (authorization === undefined || authorization === '') {
      if (/^application\/x-www-form-urlencoded/i.test(contentType)) {
        throw new InvalidRequestError('access tokens are accepted in the Authorization header only, never in a form body')
      }
      throw new MissingTokenError()
    }
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization)
    if (match === null) throw new InvalidTokenError('the Authorization header must be "Bearer <token>"')
    const info = await this.#options.verifier.verify(match[1]!)
    this.requireScopes(info, this.#options.requiredScopes ?? [], 'this endpoint')
    return info
  }

  /** Throws 403 insufficient_scope when `info` lacks a scope of a tool called in `body`. */
  checkToolCalls(info: AuthInfo, body: unknown): void {
    const toolScopes = this.#options.toolScopes
    if (toolScopes === undefined) return
    for (const message of Array.isArray(body) ? body : [body]) {
      if (typeof message !== 'object' || message === null) continue
      const { method, params } = message as { method?: unknown; params?: { name?: unknown } }
      if (method !== 'tools/call' || typeof params?.name !== 'string') continue
      const needed = toolScopes[params.name]
      if (needed !== undefined) this.requireScopes(info, needed, `the tool ${params.name}`)
    }
  }

  requireScopes(info: AuthInfo, needed: readonly string[], what: string): void {
    const missing = needed.filter((scope) => !info.scopes.includes(scope))
    if (missing.length === 0) return
    // Name every scope the step-up needs: what is held plus what is missing (MCP 2025-11-25 step-up).
    const scope = [...new Set([...(this.#options.requiredScopes ?? []), ...needed])].join(' ')
    throw new InsufficientScopeError(`${what} needs the scope ${missing.join(' ')}`, scope)
  }

  /** The HTTP answer for an error thrown by {@link authenticate} or {@link checkToolCalls}. */
  errorResponse(error: unknown): BearerErrorResponse {
    const oauth = error instanceof OAuthError ? error : new OAuthError('server_error', 500, 'internal error', { cause: error })
    const resource_metadata = this.#options.resourceMetadataUrl
    const headers: Record<string, string> = { 'cache-control': 'no-store', ...oauth.headers }
    if (oauth instanceof MissingTokenError) {
      const required = this.#options.requiredScopes
      headers['www-authenticate'] = bearerChallenge({ resource_metadata, ...(required?.length ? { scope: required.join(' ') } : {}) })
    } else if (oauth.status === 401 || oauth.status === 403 || oauth.status === 400) {
      headers['www-authenticate'] = bearerChallenge({
        error: oauth.error,
        ...(oauth.expose ? { error_description: oauth.message } : {}),
        ...oauth.params,
        resource_metadata,
      })
    }
    return { status: oauth.status, headers, body: oauth.toJSON() }
  }
}

/**
 * 401 with no error code, in the challenge and in the body alike: the request carried no token
 * at all (RFC 6750 §3.1), which is not an invalid one.
 */
export class MissingTokenError extends OAuthError {
  constructor() {
    super('invalid_token', 401, 'this resource needs an access token in the Authorization header')
  }

  override toJSON(): Record<string, string> {
    return { error_description: this.message }
  }
}
