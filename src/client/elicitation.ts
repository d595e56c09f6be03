import { ErrorCode, JsonRpcError, type JsonRpcParams } from '../jsonrpc/index.js'
import type { ClientCapabilities } from '../schema/capabilities.js'
import type { ElicitParams, ElicitResult } from '../schema/features.js'
import type { JsonSchemaValidator } from '../schema/json-schema.js'

const ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel'])

/**
 * Check an inbound `elicitation/create`: form mode needs a message and an object
 * `requestedSchema`; URL mode needs url and elicitationId and is only allowed when the client
 * declared `elicitation.url`. Anything else is -32602.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 */
export function readElicitParams(params: JsonRpcParams, declared: ClientCapabilities['elicitation']): ElicitParams {
  if (typeof params.message !== 'string') throw invalidParams('elicitation/create needs a message')
  const mode = params.mode ?? 'form'
  if (mode === 'url') {
    if (declared?.url === undefined) throw invalidParams('this client does not support URL-mode elicitation')
    if (typeof params.url !== 'string' || typeof params.elicitationId !== 'string') {
      throw invalidParams('URL-mode elicitation needs url and elicitationId')
    }
    return params as unknown as ElicitParams
  }
  if (mode !== 'form') throw invalidParams(`unknown elicitation mode ${JSON.stringify(mode)}`)
  // `elicitation: {}` means form mode (backwards compatibility), so only an explicit url-only declaration refuses it
  if (declared !== undefined && declared.form === undefined && declared.url !== undefined) {
    throw invalidParams('this client does not support form-mode elicitation')
  }
  const schema = params.requestedSchema as { type?: unknown; properties?: unknown } | undefined
  if (typeof schema !== 'object' || schema === null || schema.type !== 'object' || typeof schema.properties !== 'object' || schema.properties === null) {
    throw invalidParams('form-mode elicitation needs a requestedSchema of type object with properties')
  }
  return params as unknown as ElicitParams
}

/**
 * Check what the elicitation handler answered before it goes to the server: a known action and,
 * for an accepted form, content that matches `requestedSchema` (JSON Schema 2020-12 unless the
 * schema names draft-07). A handler that breaks this is a bug on our side: -32603.
 */
export function checkElicitResult(params: ElicitParams, result: unknown, validator: JsonSchemaValidator): ElicitResult {
  if (typeof result !== 'object' || result === null || !ACTIONS.has((result as { action?: unknown }).action)) {
    throw internalError('the elicitation handler returned no valid action (accept, decline or cancel)')
  }
  const answer = result as ElicitResult
  if (params.mode === 'url' || answer.action !== 'accept') return answer
  const content = answer.content ?? {}
  let problem: string | undefined
  try {
    problem = validator.validate(params.requestedSchema, content)
  } catch (cause) {
    throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: requestedSchema is not a usable JSON Schema', undefined, { cause })
  }
  if (problem !== undefined) throw internalError(`the elicitation content does not match requestedSchema: ${problem}`)
  return answer
}

function invalidParams(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`)
}

function internalError(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InternalError, message)
}

/**
 * SEP-1034 (MCP 2025-11-25): a client that declared `elicitation.form.applyDefaults` fills the
 * fields the user left out with the `default` of their property in `requestedSchema`, before the
 * answer is checked and sent.
 */
export function applyElicitationDefaults(params: ElicitParams, result: unknown, declared: ClientCapabilities['elicitation']): unknown {
  const form = declared?.form as { applyDefaults?: unknown } | undefined
  if (form?.applyDefaults !== true || params.mode === 'url') return result
  if (typeof result !== 'object' || result === null || (result as { action?: unknown }).action !== 'accept') return result
  const properties = (params as { requestedSchema?: { properties?: Record<string, { default?: unknown }> } }).requestedSchema?.properties ?? {}
  const content = { ...((result as { content?: Record<string, unknown> }).content ?? {}) }
  for (const [name, property] of Object.entries(properties)) {
    if (content[name] === undefined && property?.default !== undefined) content[name] = property.default
  }
  return { ...result, content }
}
