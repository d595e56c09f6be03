import { ErrorCode, JsonRpcError, type JsonRpcParams } from '../jsonrpc/index.js'
import type { CallToolResult } from '../schema/features.js'
import type { JsonSchemaValidator } from '../schema/json-schema.js'
import { reportsInputErrorsAsToolResults } from '../schema/versions.js'
import type { ServerContext } from './context.js'
import { InputRequired } from './sessionless/input-round.js'
import { optionalObject, requireString } from './params.js'
import type { ToolRegistry } from './tool-registry.js'

/**
 * tools/call, as a pipeline: find the tool → validate the arguments → run the handler → check
 * the structured output. Failures of the tool itself are results with isError (the model sees
 * them); protocol failures are JSON-RPC errors.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
 */
export async function callTool(
  params: JsonRpcParams,
  context: ServerContext,
  tools: ToolRegistry,
  validator: JsonSchemaValidator,
  protocolVersion: string | undefined,
): Promise<CallToolResult> {
  const name = requireString(params, 'name')
  const entry = tools.get(name)
  if (entry === undefined) throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: unknown tool ${name}`)

  const args = optionalObject(params, 'arguments') ?? {}
  const problem = validator.validate(entry.tool.inputSchema, args)
  if (problem !== undefined) {
    const message = `Invalid arguments for tool ${name}: ${problem}`
    if (reportsInputErrorsAsToolResults(protocolVersion)) return toolError(message)
    throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`)
  }

  let result: CallToolResult
  try {
    result = await entry.handler(args, context)
  } catch (error) {
    // a JSON-RPC error is deliberate (e.g. URL elicitation required); a question to the client
    // (2026-07-28) ends this run of the handler; cancellation gets no answer
    if (error instanceof JsonRpcError || error instanceof InputRequired || context.signal.aborted) throw error
    return toolError(error instanceof Error ? error.message : String(error))
  }

  const outputSchema = entry.tool.outputSchema
  if (outputSchema !== undefined && result.isError !== true) {
    if (result.structuredContent === undefined) {
      throw new JsonRpcError(ErrorCode.InternalError, `Tool ${name} declares an outputSchema but returned no structuredContent`)
    }
    const outputProblem = validator.validate(outputSchema, result.structuredContent)
    if (outputProblem !== undefined) {
      throw new JsonRpcError(ErrorCode.InternalError, `Tool ${name} returned structuredContent that does not match its outputSchema: ${outputProblem}`)
    }
  }
  return result
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}
