import { ErrorCode, JsonRpcError, type JsonRpcParams, type JsonRpcRequest } from '../../jsonrpc/index.js'
import type { AuthInfo } from '../../protocol/context.js'
import { CACHEABLE_METHODS, INPUT_REQUIRED_METHODS, META, revisionHasMethod, revisionOf } from '../../schema/revisions.js'
import { featureMethod } from '../feature-methods.js'
import { traceMcpRequest } from '../../observe/tracing.js'
import type { ServerCore } from '../server-core.js'
import { InputRequired, InputRound, type InputRequest } from './input-round.js'
import { removedMethodError } from '../../session-host/removed-method-error.js'
import type { RequestMeta, SessionlessIo } from '../../session-host/session-host.js'
import { principalDigest, requestDigest, type RequestStateSealer } from './request-state.js'
import { SessionlessRequestContext } from './sessionless-context.js'
import { listen } from './listen-stream.js'
import type { SubscriptionHub } from './subscription-hub.js'

export type CacheScope = 'public' | 'private'
export interface CacheHint {
  ttlMs: number
  cacheScope: CacheScope
}

/** What the sessionless path (2026-07-28) needs of an McpServer. */
export interface SessionlessServer {
  core: ServerCore
  sealer: RequestStateSealer
  subscriptions: SubscriptionHub
  requestStateTtlMs: number
  maxInputRounds: number
  /** Caching hints per cacheable method. */
  cacheHints: Readonly<Record<string, CacheHint>>
}

type Result = Record<string, unknown>

/**
 * Refuse a 2026-07-28 request for a revision this server does not speak (-32022, with what it
 * does speak) or for a method that revision does not have (-32601; for one it removed, such as
 * `ping`, saying what to send instead).
 */
export function checkSessionlessRequest(core: ServerCore, meta: RequestMeta, method: string): void {
  const revision = revisionOf(meta.protocolVersion)
  if (revision === undefined || revision.era !== 'stateless' || !core.supportedProtocolVersions.includes(meta.protocolVersion)) {
    throw new JsonRpcError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${meta.protocolVersion}`, {
      supported: [...core.supportedProtocolVersions],
      requested: meta.protocolVersion,
    })
  }
  if (revision.removedMethods.has(method)) throw removedMethodError(meta.protocolVersion, method)
  if (!revisionHasMethod(meta.protocolVersion, method) || !offers(core, method)) {
    throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`)
  }
}

function offers(core: ServerCore, method: string): boolean {
  if (method === 'server/discover' || method === 'subscriptions/listen') return true
  return featureMethod(method)?.offered(core.capabilities()) ?? false
}

/**
 * Serve one request of the sessionless revision (2026-07-28), already admitted by
 * checkSessionlessRequest: `server/discover`, `subscriptions/listen` (resolves when the stream
 * ends), and the feature methods with multi-round input. Results carry `resultType`, the
 * server's identity in `_meta`, and caching hints where the revision asks for them.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 */
export function serveSessionlessRequest(server: SessionlessServer, request: JsonRpcRequest, meta: RequestMeta, io: SessionlessIo): Promise<Result> {
  switch (request.method) {
    case 'server/discover':
      return Promise.resolve(decorate(server, request.method, discover(server.core)))
    case 'subscriptions/listen':
      // not inside an async function: a stream held open keeps no frame of this call alive
      return listen(server.subscriptions, server.core, request, io)
    default:
      return runFeature(server, request, request.params ?? {}, meta, io).then((result) => decorate(server, request.method, result))
  }
}

function discover(core: ServerCore): Result {
  const result: Result = { supportedVersions: [...core.supportedProtocolVersions], capabilities: core.capabilities() }
  if (core.instructions !== undefined) result.instructions = core.instructions
  return result
}

async function runFeature(server: SessionlessServer, request: JsonRpcRequest, params: JsonRpcParams, meta: RequestMeta, io: SessionlessIo): Promise<Result> {
  const { core } = server
  const feature = featureMethod(request.method)!
  const inputs = INPUT_REQUIRED_METHODS.has(request.method) ? openInputs(server, request.method, params, io.authInfo) : undefined
  const round = inputs === undefined ? undefined : new InputRound(inputs.answers, meta.clientCapabilities)
  const context = new SessionlessRequestContext(request.id, request.method, params, meta, io, round)
  let outcome: { result: Result } | { error: unknown }
  try {
    outcome = { result: (await traceMcpRequest(request.method, params, () => feature.run(core, params, context, meta.protocolVersion))) as Result }
  } catch (error) {
    outcome = { error }
  }
  // questions the handler reached win over whatever it made of not having their answers yet
  if (round !== undefined && inputs !== undefined && round.asked.size > 0) return inputRequired(server, round, inputs)
  if ('error' in outcome) throw notFoundAsInvalidParams(outcome.error, meta.protocolVersion)
  return outcome.result
}

const NO_ANSWERS: ReadonlyMap<string, unknown> = new Map()

/** What a multi-round request brings back, and what binds its next requestState to it. */
class Inputs {
  answers: ReadonlyMap<string, unknown> = NO_ANSWERS
  round = 0
  readonly #method: string
  readonly #params: JsonRpcParams
  readonly #authInfo: AuthInfo | undefined
  #binding: { request: string; principal: string } | undefined

  constructor(method: string, params: JsonRpcParams, authInfo: AuthInfo | undefined) {
    this.#method = method
    this.#params = params
    this.#authInfo = authInfo
  }

  /**
   * The request and principal digests a requestState is bound to, computed when a state is
   * opened or sealed: a SHA-256 over the key-sorted params cost ~4 µs, ~9% of a plain tools/call
   * that neither carries nor earns a requestState (CPU profile, bench:stateless, issue 14).
   * Sealing digests the params as they are after the handler ran: a handler that changes its own
   * arguments before it asks for input would see its retry refused (handlers get them to read).
   */
  get binding(): { request: string; principal: string } {
    this.#binding ??= { request: requestDigest(this.#method, this.#params), principal: principalDigest(principalOf(this.#authInfo)) }
    return this.#binding
  }
}

/** The answers a retry brings: those sealed in its requestState plus its inputResponses. */
function openInputs(server: SessionlessServer, method: string, params: JsonRpcParams, authInfo: AuthInfo | undefined): Inputs {
  const inputs = new Inputs(method, params, authInfo)
  const responses = params.inputResponses
  if (params.requestState === undefined && responses === undefined) return inputs
  const answers = new Map<string, unknown>()
  if (params.requestState !== undefined) {
    const state = server.sealer.open(params.requestState, { ...inputs.binding, now: Date.now() })
    inputs.round = state.round
    for (const [key, answer] of Object.entries(state.answers)) answers.set(key, answer)
  }
  if (responses !== undefined) {
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
      throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object keyed by the input request keys')
    }
    // keys the handler never asks for are ignored (it only looks up its own)
    for (const [key, answer] of Object.entries(responses)) if (answer !== null && typeof answer === 'object') answers.set(key, answer)
  }
  inputs.answers = answers
  return inputs
}

function inputRequired(server: SessionlessServer, round: InputRound, inputs: Inputs): Result {
  if (inputs.round + 1 > server.maxInputRounds) {
    throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: this request asked for input ${inputs.round} times already; start it again`)
  }
  const inputRequests: Record<string, InputRequest> = {}
  for (const [key, question] of round.asked) inputRequests[key] = question
  const { request, principal } = inputs.binding
  const requestState = server.sealer.seal({
    request,
    principal,
    expiresAt: Date.now() + server.requestStateTtlMs,
    round: inputs.round + 1,
    asked: [...round.asked.keys()],
    answers: Object.fromEntries(round.used),
  })
  return { resultType: 'input_required', inputRequests, requestState, _meta: { [META.serverInfo]: server.core.serverInfo } }
}

/** SEP-2164: from 2026-07-28 an unknown resource is -32602 (with the URI), not -32002. */
function notFoundAsInvalidParams(error: unknown, protocolVersion: string): unknown {
  if (error instanceof InputRequired) return new JsonRpcError(ErrorCode.InternalError, 'Internal error: the handler asked for input it could not wait for')
  const code = revisionOf(protocolVersion)?.resourceNotFoundCode
  if (error instanceof JsonRpcError && error.code === ErrorCode.ResourceNotFound && code !== undefined && code !== error.code) {
    return new JsonRpcError(code, error.message, error.data, { cause: error })
  }
  return error
}

function decorate(server: SessionlessServer, method: string, result: Result): Result {
  if (result.resultType === 'input_required') return result
  // Object.assign, not `{ ...result, resultType }`: on Node 20 that spread with a property after
  // it cost ~1.7 µs a call and gave a copy slower to stringify; this copy costs ~40 ns
  const decorated: Result = Object.assign({}, result)
  decorated.resultType = 'complete'
  if (CACHEABLE_METHODS.has(method)) {
    const hint = server.cacheHints[method]
    if (hint !== undefined) {
      if (decorated.ttlMs === undefined) decorated.ttlMs = hint.ttlMs
      if (decorated.cacheScope === undefined) decorated.cacheScope = hint.cacheScope
    }
  }
  const meta = result._meta
  decorated._meta = typeof meta === 'object' && meta !== null ? { ...meta, [META.serverInfo]: server.core.serverInfo } : { [META.serverInfo]: server.core.serverInfo }
  return decorated
}

/** Who a request is from, for binding requestState (never the token itself). */
function principalOf(authInfo: AuthInfo | undefined): string {
  if (authInfo === undefined) return ''
  return JSON.stringify([authInfo.claims?.['iss'] ?? '', authInfo.subject ?? '', authInfo.clientId])
}
