import type { JsonRpcParams, RequestId } from '../../jsonrpc/index.js'
import type { AuthInfo } from '../../protocol/context.js'
import { LocalError } from '../../protocol/errors.js'
import { createProgressReporter, readProgressToken } from '../../protocol/progress.js'
import type { ClientCapabilities } from '../../schema/capabilities.js'
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult, LoggingLevel, ProgressToken } from '../../schema/features.js'
import type { InputOptions, ServerContext } from '../context.js'
import { isAtLeast } from '../logging.js'
import type { InputRound } from './input-round.js'
import type { RequestMeta, SessionlessIo } from '../../session-host/session-host.js'

const isElicitResult = (value: unknown): value is ElicitResult => {
  const action = (value as { action?: unknown } | null)?.action
  return typeof value === 'object' && (action === 'accept' || action === 'decline' || action === 'cancel')
}
const isCreateMessageResult = (value: unknown): value is CreateMessageResult => {
  const v = value as Partial<CreateMessageResult> | null
  return typeof value === 'object' && v !== null && typeof v.model === 'string' && typeof v.role === 'string' && typeof v.content === 'object' && v.content !== null
}
const isListRootsResult = (value: unknown): value is ListRootsResult => Array.isArray((value as { roots?: unknown } | null)?.roots)

/**
 * The ServerContext of one 2026-07-28 request: no session; the client's capabilities and log
 * level come from the request's `_meta`; questions to the client become an input-required round.
 */
export class SessionlessRequestContext implements ServerContext {
  readonly requestId: RequestId
  readonly method: string
  readonly meta: Record<string, unknown> | undefined
  readonly progressToken: ProgressToken | undefined
  readonly session = undefined
  readonly sessionId = undefined
  readonly round: InputRound | undefined
  readonly #io: SessionlessIo
  readonly #request: RequestMeta
  #reporter: ReturnType<typeof createProgressReporter> | undefined

  constructor(requestId: RequestId, method: string, params: JsonRpcParams, request: RequestMeta, io: SessionlessIo, round: InputRound | undefined) {
    this.requestId = requestId
    this.method = method
    this.meta = params._meta as Record<string, unknown> | undefined
    this.progressToken = readProgressToken(this.meta)
    this.#io = io
    this.#request = request
    this.round = round
  }

  get signal(): AbortSignal {
    return this.#io.signal
  }
  get authInfo(): AuthInfo | undefined {
    return this.#io.authInfo
  }
  get headers(): SessionlessIo['headers'] {
    return this.#io.headers
  }
  get protocolVersion(): string {
    return this.#request.protocolVersion
  }
  get clientCapabilities(): ClientCapabilities {
    return this.#request.clientCapabilities
  }

  sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    this.#reporter ??= createProgressReporter(this.progressToken, (params) => this.#io.notify('notifications/progress', params as unknown as JsonRpcParams))
    return this.#reporter(progress, total, message)
  }

  sendNotification(method: string, params?: JsonRpcParams): Promise<void> {
    return this.#io.notify(method, params ?? {})
  }

  /** Only the three questions MRTR carries can be asked of a client in this revision. */
  sendRequest(method: string, params?: JsonRpcParams, options?: InputOptions): Promise<Record<string, unknown>> {
    switch (method) {
      case 'elicitation/create':
        return this.elicit(params as unknown as ElicitParams, options) as unknown as Promise<Record<string, unknown>>
      case 'sampling/createMessage':
        return this.createMessage(params as unknown as CreateMessageParams, options) as unknown as Promise<Record<string, unknown>>
      case 'roots/list':
        return this.listRoots(options) as unknown as Promise<Record<string, unknown>>
      default:
        return Promise.reject(new LocalError('invalid_state', `a server sends no ${method} request in protocol version ${this.protocolVersion}`))
    }
  }

  /** Log only when the request's `_meta` asked for a level, and at or above it. */
  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const threshold = this.#request.logLevel
    if (threshold === undefined || !isAtLeast(level, threshold)) return
    await this.#io.notify('notifications/message', logger === undefined ? { level, data } : { level, logger, data })
  }

  elicit(params: ElicitParams, options?: InputOptions): Promise<ElicitResult> {
    if (params.mode === 'url' && this.clientCapabilities.elicitation?.url === undefined) {
      return Promise.reject(new LocalError('capability_not_supported', 'the client does not support URL-mode elicitation'))
    }
    return this.#ask({ method: 'elicitation/create', params: params as unknown as Record<string, unknown> }, options, isElicitResult)
  }

  createMessage(params: CreateMessageParams, options?: InputOptions): Promise<CreateMessageResult> {
    return this.#ask({ method: 'sampling/createMessage', params: params as unknown as Record<string, unknown> }, options, isCreateMessageResult)
  }

  listRoots(options?: InputOptions): Promise<ListRootsResult> {
    return this.#ask({ method: 'roots/list', params: {} }, options, isListRootsResult)
  }

  #ask<T>(request: Parameters<InputRound['ask']>[0], options: InputOptions | undefined, accept: (answer: unknown) => answer is T): Promise<T> {
    if (this.round === undefined) {
      return Promise.reject(new LocalError('invalid_state', `${this.method} cannot ask the client for input (only tools/call, prompts/get and resources/read can)`))
    }
    return this.round.ask(request, options?.key, accept)
  }
}
