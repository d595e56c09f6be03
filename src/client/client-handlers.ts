import { ErrorCode, JsonRpcError, type JsonRpcParams } from '../jsonrpc/index.js'
import type { RequestContext } from '../protocol/context.js'
import { LocalError } from '../protocol/errors.js'
import type { Endpoint } from '../protocol/endpoint.js'
import type { ClientCapabilities } from '../schema/capabilities.js'
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, Root } from '../schema/features.js'
import type { JsonSchemaValidator } from '../schema/json-schema.js'
import { applyElicitationDefaults, checkElicitResult, readElicitParams } from './elicitation.js'

/**
 * Answers `sampling/createMessage`: run the request through a model the user approved.
 *
 * @example
 * client.setSamplingHandler(async (params, { signal }) => ({
 *   role: 'assistant', content: { type: 'text', text: await llm(params.messages, { signal }) }, model: 'my-model',
 * }))
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/sampling
 */
export type SamplingHandler = (params: CreateMessageParams, context: RequestContext) => Promise<CreateMessageResult>
/**
 * Answers `elicitation/create`: ask the user and report their action. Accepted form content is
 * checked against `requestedSchema` before it is sent.
 *
 * @example
 * client.setElicitationHandler(async (params) =>
 *   params.mode === 'url' ? { action: 'decline' } : { action: 'accept', content: { name: 'Ada' } })
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 */
export type ElicitationHandler = (params: ElicitParams, context: RequestContext) => Promise<ElicitResult>

/**
 * The client's side of server → client requests: sampling, elicitation and roots. Each is
 * declared at initialize when its handler (or roots) was set before connect, and answered only
 * when declared; the server gets -32601 for anything else.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/sampling
 */
export class ClientHandlers {
  #sampling: SamplingHandler | undefined
  #elicitation: ElicitationHandler | undefined
  #roots: Root[] | undefined

  setSampling(handler: SamplingHandler): void {
    this.#sampling = handler
  }

  setElicitation(handler: ElicitationHandler): void {
    this.#elicitation = handler
  }

  setRoots(roots: readonly Root[]): void {
    // a copy, so later edits to the caller's array do not change what we answer
    this.#roots = roots.map((root) => ({ ...root }))
  }

  /** What to declare: the caller's capabilities plus those the set handlers imply. */
  capabilities(base: ClientCapabilities): ClientCapabilities {
    const declared: ClientCapabilities = { ...base }
    if (this.#sampling !== undefined && declared.sampling === undefined) declared.sampling = {}
    if (this.#elicitation !== undefined && declared.elicitation === undefined) declared.elicitation = { form: {} }
    if (this.#roots !== undefined && declared.roots === undefined) declared.roots = { listChanged: true }
    return declared
  }

  /** Register the request handlers for what `declared` announces. */
  install(endpoint: Endpoint, declared: ClientCapabilities, validator: JsonSchemaValidator): void {
    if (declared.sampling !== undefined) {
      endpoint.setRequestHandler('sampling/createMessage', (params, context) => this.#createMessage(params, context))
    }
    if (declared.elicitation !== undefined) {
      endpoint.setRequestHandler('elicitation/create', (params, context) => this.#elicit(params, context, declared.elicitation, validator))
    }
    if (declared.roots !== undefined) {
      endpoint.setRequestHandler('roots/list', () => ({ roots: this.#roots ?? [] }))
    }
  }

  /**
   * Answer one question of an input-required result (2026-07-28) with the same handlers that
   * answer server requests in the handshake era. A question about a capability this client did
   * not declare is the server's error: the call fails instead of answering it.
   */
  answerInput(method: string, params: JsonRpcParams, context: RequestContext, declared: ClientCapabilities, validator: JsonSchemaValidator): Promise<unknown> {
    const refuse = (capability: string) => Promise.reject(new LocalError('invalid_response', `the server asked for ${method}, but this client did not declare ${capability}`))
    switch (method) {
      case 'sampling/createMessage':
        return declared.sampling === undefined ? refuse('sampling') : this.#createMessage(params, context)
      case 'elicitation/create':
        return declared.elicitation === undefined ? refuse('elicitation') : this.#elicit(params, context, declared.elicitation, validator)
      case 'roots/list':
        return declared.roots === undefined ? refuse('roots') : Promise.resolve({ roots: this.#roots ?? [] })
      default:
        return Promise.reject(new LocalError('invalid_response', `the server asked for ${method}, which is not a question a client answers`))
    }
  }

  async #createMessage(params: JsonRpcParams, context: RequestContext): Promise<CreateMessageResult> {
    const handler = this.#sampling
    if (handler === undefined) throw new JsonRpcError(ErrorCode.MethodNotFound, 'Method not found: sampling/createMessage (no sampling handler is set)')
    if (!Array.isArray(params.messages) || typeof params.maxTokens !== 'number') {
      throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: sampling/createMessage needs messages and maxTokens')
    }
    const result = await handler(params as CreateMessageParams, context)
    if (typeof result !== 'object' || result === null || typeof result.model !== 'string' || typeof result.role !== 'string' || typeof result.content !== 'object') {
      throw new JsonRpcError(ErrorCode.InternalError, 'the sampling handler returned no role, content and model')
    }
    return result
  }

  async #elicit(params: JsonRpcParams, context: RequestContext, declared: ClientCapabilities['elicitation'], validator: JsonSchemaValidator): Promise<ElicitResult> {
    const handler = this.#elicitation
    if (handler === undefined) throw new JsonRpcError(ErrorCode.MethodNotFound, 'Method not found: elicitation/create (no elicitation handler is set)')
    const request = readElicitParams(params, declared)
    return checkElicitResult(request, applyElicitationDefaults(request, await handler(request, context), declared), validator)
  }
}
