import { LocalError } from '../protocol/errors.js'
import type { JsonSchemaValidator } from '../schema/json-schema.js'
import type { CallToolResult, JsonSchemaObject, Tool } from '../schema/features.js'

/**
 * The output schemas of the tools this client has listed, so `tools/call` results can be checked:
 * a tool that declares an outputSchema MUST return conforming `structuredContent` (unless the
 * result is an error). Tools never listed are not checked.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema
 */
export class ToolOutputSchemas {
  readonly #validator: JsonSchemaValidator
  readonly #schemas = new Map<string, JsonSchemaObject>()

  constructor(validator: JsonSchemaValidator) {
    this.#validator = validator
  }

  /** Remember what a tools/list page said; a tool listed without outputSchema is no longer checked. */
  remember(tools: readonly Tool[]): void {
    for (const tool of tools) {
      if (typeof tool?.name !== 'string') continue
      if (typeof tool.outputSchema === 'object' && tool.outputSchema !== null) this.#schemas.set(tool.name, tool.outputSchema)
      else this.#schemas.delete(tool.name)
    }
  }

  /** The tool list changed on the server: what we knew may be stale. */
  forget(): void {
    this.#schemas.clear()
  }

  /** Throws LocalError('invalid_response') when the result breaks the tool's declared outputSchema. */
  check(name: string, result: CallToolResult): void {
    const schema = this.#schemas.get(name)
    if (schema === undefined || result.isError === true) return
    if (result.structuredContent === undefined) {
      throw new LocalError('invalid_response', `tool ${name} declares an outputSchema but returned no structuredContent`)
    }
    let problem: string | undefined
    try {
      problem = this.#validator.validate(schema, result.structuredContent)
    } catch (cause) {
      throw new LocalError('invalid_response', `tool ${name} declares an outputSchema that cannot be compiled`, { cause })
    }
    if (problem !== undefined) {
      throw new LocalError('invalid_response', `tool ${name} returned structuredContent that does not match its outputSchema: ${problem}`)
    }
  }
}
