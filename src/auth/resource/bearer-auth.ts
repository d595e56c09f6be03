import { defaults } from '../../config/defaults.js'
import type { AuthInfo } from '../../auth-info/auth-info.js'
import { isStorageUnavailable } from '../../storage/errors.js'
import { InsufficientScopeError, InvalidDpopProofError, InvalidRequestError, InvalidTokenError, OAuthError, TemporarilyUnavailableError, UseDpopNonceError } from '../errors.js'
import { DpopNonces, type DpopNoncesOptions } from './dpop-nonces.js'
import { verifyDpopProof } from './dpop-proof.js'
import { MemoryDpopReplayCache, type DpopReplayCache } from './dpop-replay-cache.js'
import type { TokenVerifier } from './token-verifier.js'
import { challenge } from './www-authenticate.js'

/** DPoP (RFC 9449) at this resource: sender-constrained tokens presented with the `DPoP` scheme and a proof. */
export interface DpopOptions {
  /**
   * Refuse Bearer tokens: only DPoP-bound tokens with a proof (advertised as
   * `dpop_bound_access_tokens_required`). Default false: both schemes, each token as it was issued.
   */
  required?: boolean
  /** JWS algorithms accepted on proofs (asymmetric only). */
  algorithms?: readonly string[]
  /** How far (seconds) a proof's `iat` may lie from now. */
  iatWindowSeconds?: number
  /** Where used proofs are remembered; default one process's memory (give a shared one to several processes). */
  replayCache?: DpopReplayCache
  /** Server nonces (RFC 9449 §9): off by default; true for a random secret (one process), or options with a shared secret. */
  nonces?: boolean | DpopNoncesOptions | DpopNonces
  /** The public origin clients address (`htu`); default the origin of `resourceMetadataUrl`. */
  origin?: string
  now?: () => number
}

export interface BearerAuthOptions {
  verifier: TokenVerifier
  /** URL of this resource's RFC 9728 metadata, sent in every challenge as `resource_metadata`. */
  resourceMetadataUrl: string
  /** Scopes every request needs (default none beyond a valid token). */
  requiredScopes?: readonly string[]
  /** Extra scopes per tool name, checked on `tools/call`. */
  toolScopes?: Readonly<Record<string, readonly string[]>>
  /** DPoP: accepted by default (a bound token is always refused as Bearer); false turns the scheme off. */
  dpop?: DpopOptions | false
}

/** What AuthInfo.extra carries for a request authenticated with DPoP. */
export interface DpopAuthExtra {
  /** Thumbprint of the key the token is bound to. */
  dpopJkt: string
  /** A fresher nonce to hand out in `DPoP-Nonce` beside the answer. */
  dpopNonce?: string
}

interface DpopSettings {
  required: boolean
  algorithms: readonly string[]
  iatWindowSeconds: number
  replayCache: DpopReplayCache
  nonces: DpopNonces | undefined
  origin: string
  now: () => number
}

/** Errors answered with a `DPoP` challenge rather than a `Bearer` one (RFC 9449 §7.1). */
const dpopAnswered = new WeakSet<object>()

/** What the audit trail says of a refusal: the replayed proof's caller, the tool and the scopes it needed. */
const factsOf = new WeakMap<object, RefusalFacts>()

/** The facts of a refusal thrown by {@link BearerAuth} the audit trail records (identifiers only). */
export type RefusalFacts = { kind: 'dpop-replay'; clientId: string; subject: string | undefined } | { kind: 'tool-scope'; tool: string; needed: readonly string[] }

/** The facts of `error` when it is a DPoP replay or a tool's missing scope, else undefined. */
export function refusalFacts(error: unknown): RefusalFacts | undefined {
  return typeof error === 'object' && error !== null ? factsOf.get(error) : undefined
}

function asDpopError<T>(error: T): T {
  if (typeof error === 'object' && error !== null) dpopAnswered.add(error)
  return error
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
  // not readonly: an endpoint's copy (withResourceMetadataUrl) shares the original's
  #dpop: DpopSettings | undefined

  constructor(options: BearerAuthOptions) {
    this.#options = options
    this.#dpop = options.dpop === false ? undefined : dpopSettings(options.dpop ?? {}, options.resourceMetadataUrl)
  }

  /**
   * The same check (verifier, scopes, and DPoP settings: one replay cache, one nonce secret) for
   * another endpoint of the same server, whose challenges name its own metadata (RFC 9728 §5.1).
   *
   * @example
   * const sse = auth.withResourceMetadataUrl('https://mcp.example.com/.well-known/oauth-protected-resource/sse')
   */
  withResourceMetadataUrl(resourceMetadataUrl: string): BearerAuth {
    const copy = new BearerAuth({ ...this.#options, resourceMetadataUrl, dpop: false })
    copy.#dpop = this.#dpop
    return copy
  }

  /** The protected resource metadata options that describe DPoP here (none when it is off). */
  get dpopMetadata(): { dpopSigningAlgValuesSupported?: readonly string[]; dpopBoundAccessTokensRequired?: boolean } {
    const dpop = this.#dpop
    if (dpop === undefined) return {}
    return { dpopSigningAlgValuesSupported: dpop.algorithms, ...(dpop.required ? { dpopBoundAccessTokensRequired: true } : {}) }
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
    const match = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization)
    const dpop = this.#dpop
    if (match === null || (dpop === undefined && match[1]!.toLowerCase() === 'dpop')) {
      throw new InvalidTokenError(dpop === undefined ? 'the Authorization header must be "Bearer <token>"' : 'the Authorization header must be "Bearer <token>" or "DPoP <token>"')
    }
    const token = match[2]!
    let info: AuthInfo
    if (match[1]!.toLowerCase() === 'dpop') {
      info = await this.#authenticateDpop(dpop!, request, token).catch((error: unknown) => Promise.reject(asDpopError(error)))
    } else {
      if (dpop?.required === true) throw asDpopError(new InvalidTokenError('this resource accepts DPoP-bound access tokens only, with the DPoP scheme and a proof'))
      info = await this.#options.verifier.verify(token)
      // a stolen bound token is worth nothing without its key: never accepted as a bearer token
      if (boundKey(info) !== undefined) throw asDpopError(new InvalidTokenError('a DPoP-bound access token must be sent with the DPoP scheme and a proof'))
    }
    this.requireScopes(info, this.#options.requiredScopes ?? [], 'this endpoint')
    return info
  }

  async #authenticateDpop(dpop: DpopSettings, request: BearerRequest, token: string): Promise<AuthInfo> {
    const info = await this.#options.verifier.verify(token)
    const jkt = boundKey(info)
    if (jkt === undefined) throw new InvalidTokenError('the access token is not DPoP-bound: send it with the Bearer scheme')
    const now = dpop.now()
    const proof = await verifyDpopProof({
      proof: request.headers['dpop'],
      method: request.method,
      url: `${dpop.origin}${request.url.pathname}`,
      accessToken: token,
      algorithms: dpop.algorithms,
      iatWindowSeconds: dpop.iatWindowSeconds,
      now,
    })
    if (proof.jkt !== jkt) throw new InvalidDpopProofError('the DPoP proof is signed with another key than the one the access token is bound to')
    let fresherNonce: string | undefined
    if (dpop.nonces !== undefined) {
      const verdict = dpop.nonces.check(proof.nonce)
      if (verdict === false) throw new UseDpopNonceError(dpop.nonces.current(), proof.nonce === undefined ? undefined : 'the DPoP nonce is unknown or has expired')
      if (verdict === 'stale') fresherNonce = dpop.nonces.current()
    }
    // remembered for as long as the proof's iat keeps it acceptable
    if (!(await dpop.replayCache.remember(jkt, proof.jti, (proof.iat + dpop.iatWindowSeconds) * 1000 + 1))) {
      const replay = new InvalidDpopProofError('the DPoP proof was already used (jti): make a new proof for every request')
      factsOf.set(replay, { kind: 'dpop-replay', clientId: info.clientId, subject: info.subject })
      throw replay
    }
    const extra: DpopAuthExtra = { dpopJkt: jkt, ...(fresherNonce !== undefined ? { dpopNonce: fresherNonce } : {}) }
    return { ...info, extra: { ...info.extra, ...extra } }
  }

  /** Throws 403 insufficient_scope when `info` lacks a scope of a tool called in `body`. */
  checkToolCalls(info: AuthInfo, body: unknown): void {
    const toolScopes = this.#options.toolScopes
    if (toolScopes === undefined) return
    for (const message of Array.isArray(body) ? body : [body]) {
      if (typeof message !== 'object' || message === null) continue
      const { method, params } = message as { method?: unknown; params?: { name?: unknown } }
      if (method !== 'tools/call' || typeof params?.name !== 'string') continue
      // own members only: a tool named "constructor" or "toString" needs no scope it was not given
      const needed = Object.hasOwn(toolScopes, params.name) ? toolScopes[params.name] : undefined
      if (needed === undefined) continue
      try {
        this.requireScopes(info, needed, `the tool ${params.name}`)
      } catch (error) {
        factsOf.set(error as object, { kind: 'tool-scope', tool: params.name, needed })
        throw error
      }
    }
  }

  requireScopes(info: AuthInfo, needed: readonly string[], what: string): void {
    const missing = needed.filter((scope) => !info.scopes.includes(scope))
    if (missing.length === 0) return
    // Name every scope the step-up needs: what is held plus what is missing (MCP 2025-11-25 step-up).
    const scope = [...new Set([...(this.#options.requiredScopes ?? []), ...needed])].join(' ')
    const error = new InsufficientScopeError(`${what} needs the scope ${missing.join(' ')}`, scope)
    // a request made with DPoP is challenged with DPoP
    throw info.extra?.['dpopJkt'] === undefined ? error : asDpopError(error)
  }

  /** The HTTP answer for an error thrown by {@link authenticate} or {@link checkToolCalls}. */
  errorResponse(error: unknown): BearerErrorResponse {
    const oauth =
      error instanceof OAuthError ? error : isStorageUnavailable(error) ? storageUnavailable(error) : new OAuthError('server_error', 500, 'internal error', { cause: error })
    const resource_metadata = this.#options.resourceMetadataUrl
    const headers: Record<string, string> = { 'cache-control': 'no-store', ...oauth.headers }
    const dpop = this.#dpop
    // DPoP-only resources, and refusals of a DPoP request or of a bound token, challenge with DPoP
    const scheme = dpop !== undefined && (dpop.required || dpopAnswered.has(oauth)) ? 'DPoP' : 'Bearer'
    const algs = scheme === 'DPoP' ? { algs: dpop!.algorithms.join(' ') } : {}
    if (oauth instanceof MissingTokenError) {
      const required = this.#options.requiredScopes
      headers['www-authenticate'] = challenge(scheme, { ...algs, resource_metadata, ...(required?.length ? { scope: required.join(' ') } : {}) })
    } else if (oauth.status === 401 || oauth.status === 403 || oauth.status === 400) {
      headers['www-authenticate'] = challenge(scheme, {
        error: oauth.error,
        ...(oauth.expose ? { error_description: oauth.message } : {}),
        ...oauth.params,
        ...algs,
        resource_metadata,
      })
    }
    return { status: oauth.status, headers, body: oauth.toJSON() }
  }
}

/**
 * 503 with Retry-After for a check that needed the shared store (the DPoP replay cache in Redis)
 * while it cannot be reached: nothing was remembered, so the client may send the same request
 * again with a new proof.
 */
function storageUnavailable(cause: unknown): OAuthError {
  const retryAfter = defaults.streamableHttp.storageRetryAfterSeconds
  return new TemporarilyUnavailableError(`the DPoP proof cannot be checked while storage is unreachable; retry in ${retryAfter} s with a new proof`, {
    cause,
    headers: { 'retry-after': String(retryAfter) },
  })
}

/** The thumbprint a token is bound to (`cnf.jkt`, RFC 9449 §6), from its claims or introspection. */
function boundKey(info: AuthInfo): string | undefined {
  const cnf = info.claims?.['cnf']
  if (typeof cnf !== 'object' || cnf === null) return undefined
  const jkt = (cnf as Record<string, unknown>)['jkt']
  return typeof jkt === 'string' && jkt !== '' ? jkt : undefined
}

function dpopSettings(options: DpopOptions, resourceMetadataUrl: string): DpopSettings {
  const d = defaults.resourceServer.dpop
  const algorithms = [...(options.algorithms ?? d.algorithms)].filter((alg) => alg !== 'none' && !alg.startsWith('HS'))
  if (algorithms.length === 0) throw new TypeError('DPoP needs at least one asymmetric algorithm')
  const nonces = options.nonces
  return {
    required: options.required === true,
    algorithms,
    iatWindowSeconds: options.iatWindowSeconds ?? d.iatWindowSeconds,
    replayCache: options.replayCache ?? new MemoryDpopReplayCache(),
    nonces: nonces === undefined || nonces === false ? undefined : nonces instanceof DpopNonces ? nonces : new DpopNonces(nonces === true ? {} : nonces),
    origin: new URL(options.origin ?? resourceMetadataUrl).origin,
    now: options.now ?? Date.now,
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
