import type { RequestContext } from '../protocol/context.js'
import type { RequestOptions } from '../protocol/request-options.js'
import type { ClientCapabilities } from '../schema/capabilities.js'
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult, LoggingLevel } from '../schema/features.js'
import type { HandlerSession } from './handler-session.js'

/**
 * Options of a question to the client (elicitation, sampling, roots). `key` names the question in
 * a 2026-07-28 input-required result (MRTR); without one it is numbered in the order asked.
 */
export interface InputOptions extends RequestOptions {
  key?: string
}

/**
 * What every server-side handler (tool, resource, prompt, completer) receives: the request
 * context (AbortSignal, progress, auth info) plus ways to reach the client on behalf of this
 * request. One handler serves every revision: before 2026-07-28 `elicit`, `createMessage` and
 * `listRoots` are requests on the same stream as the request being handled; from 2026-07-28 they
 * become an input-required round (the client answers and retries, the handler runs again and
 * this time gets the answers).
 */
export interface ServerContext extends RequestContext {
  /** The session of a handshake-era connection; undefined for a stateless (2026-07-28) request. */
  session: HandlerSession | undefined
  /** The revision this request is served under. */
  protocolVersion: string | undefined
  /** What the client declared: at initialize, or in this request's `_meta` (2026-07-28). */
  clientCapabilities: ClientCapabilities
  /** Send `notifications/message`, filtered by the level the client set (or asked for in `_meta`). */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>
  /** sampling/createMessage: ask the client's model for a completion. */
  createMessage(params: CreateMessageParams, options?: InputOptions): Promise<CreateMessageResult>
  /** elicitation/create: ask the user for input, through the client. */
  elicit(params: ElicitParams, options?: InputOptions): Promise<ElicitResult>
  /** roots/list: the client's filesystem roots. */
  listRoots(options?: InputOptions): Promise<ListRootsResult>
}

/**
 * The ServerContext of one request: the endpoint's RequestContext plus the session. A class that
 * delegates rather than a spread copy with fresh closures, since one is built for every request.
 */
class ServerRequestContext implements ServerContext {
  readonly session: HandlerSession
  readonly #base: RequestContext

  constructor(session: HandlerSession, base: RequestContext) {
    this.session = session
    this.#base = base
  }

  get requestId(): RequestContext['requestId'] {
    return this.#base.requestId
  }
  get method(): string {
    return this.#base.method
  }
  get signal(): AbortSignal {
    return this.#base.signal
  }
  get sessionId(): string | undefined {
    return this.#base.sessionId
  }
  get authInfo(): RequestContext['authInfo'] {
    return this.#base.authInfo
  }
  get headers(): RequestContext['headers'] {
    return this.#base.headers
  }
  get meta(): RequestContext['meta'] {
    return this.#base.meta
  }
  get progressToken(): RequestContext['progressToken'] {
    return this.#base.progressToken
  }
  get protocolVersion(): string | undefined {
    return this.session.protocolVersion
  }
  get clientCapabilities(): ClientCapabilities {
    return this.session.clientCapabilities ?? {}
  }

  sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    return this.#base.sendProgress(progress, total, message)
  }
  sendNotification(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.#base.sendNotification(method, params)
  }
  sendRequest(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<Record<string, unknown>> {
    return this.#base.sendRequest(method, params, options)
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.session.log(level, data, logger, { relatedRequestId: this.#base.requestId })
  }
  createMessage(params: CreateMessageParams, options?: InputOptions): Promise<CreateMessageResult> {
    return this.session.createMessage(params, this.#related(options))
  }
  elicit(params: ElicitParams, options?: InputOptions): Promise<ElicitResult> {
    return this.session.elicit(params, this.#related(options))
  }
  listRoots(options?: InputOptions): Promise<ListRootsResult> {
    return this.session.listRoots(this.#related(options))
  }

  /** Requests made for this request travel with it (same HTTP stream, same cancellation). */
  #related(options: InputOptions | undefined): RequestOptions {
    const { key: _key, ...rest } = options ?? {}
    return { ...rest, relatedRequestId: this.#base.requestId, signal: options?.signal ?? this.#base.signal }
  }
}

export function createServerContext(session: HandlerSession, base: RequestContext): ServerContext {
  return new ServerRequestContext(session, base)
}
