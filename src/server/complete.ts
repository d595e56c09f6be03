import { ErrorCode, JsonRpcError, type JsonRpcParams } from '../jsonrpc/index.js'
import type { CompleteResult } from '../schema/features.js'
import { optionalObject } from './params.js'
import type { PromptRegistry } from './prompt-registry.js'
import type { Completer, ResourceRegistry } from './resource-registry.js'

/**
 * completion/complete: find the completer for a prompt argument or a template variable and
 * answer at most `maxValues` values, with the total and whether more exist.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion
 */
export async function complete(params: JsonRpcParams, prompts: PromptRegistry, resources: ResourceRegistry, maxValues: number): Promise<CompleteResult> {
  const ref = optionalObject(params, 'ref')
  const argument = optionalObject(params, 'argument')
  if (ref === undefined || argument === undefined || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: ref and argument {name, value} are required')
  }
  const contextArguments = (optionalObject(params, 'context')?.arguments ?? {}) as Record<string, string>

  let completer: Completer | undefined
  if (ref.type === 'ref/prompt' && typeof ref.name === 'string') completer = prompts.completer(ref.name, argument.name)
  else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') completer = resources.completer(ref.uri, argument.name)
  else throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: ref must be ref/prompt with a name or ref/resource with a uri')

  const all = completer === undefined ? [] : await completer(argument.value, { arguments: contextArguments })
  const values = all.slice(0, maxValues)
  return { completion: { values, total: all.length, hasMore: all.length > values.length } }
}
