import type { CallToolResult, JsonSchemaObject, Tool } from '../schema/features.js'
import type { JsonSchemaValidator } from '../schema/json-schema.js'
import type { ServerContext } from './context.js'

export type ToolHandler = (args: Record<string, unknown>, context: ServerContext) => CallToolResult | Promise<CallToolResult>

export interface ToolDefinition extends Omit<Tool, 'inputSchema'> {
  /** JSON Schema of the arguments; an empty object schema when omitted. */
  inputSchema?: JsonSchemaObject
}

/** A registered tool: change it or take it away at run time (clients hear list_changed). */
export interface RegisteredTool {
  readonly name: string
  update(changes: Partial<ToolDefinition> & { handler?: ToolHandler }): void
  enable(): void
  disable(): void
  remove(): void
}

export interface ToolEntry {
  tool: Tool
  handler: ToolHandler
  enabled: boolean
}

/** Tool names as MCP 2025-11-25 recommends: 1–128 of A–Z a–z 0–9 _ - . */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/
const EMPTY_OBJECT_SCHEMA: JsonSchemaObject = { type: 'object', properties: {} }

/**
 * The tools of one server, shared by all its sessions.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools
 */
export class ToolRegistry {
  readonly #tools = new Map<string, ToolEntry>()
  readonly #validator: JsonSchemaValidator
  readonly #changed: () => void

  constructor(validator: JsonSchemaValidator, changed: () => void) {
    this.#validator = validator
    this.#changed = changed
  }

  get size(): number {
    return this.#tools.size
  }

  register(definition: ToolDefinition, handler: ToolHandler): RegisteredTool {
    if (!TOOL_NAME.test(definition.name)) throw new TypeError(`invalid tool name ${JSON.stringify(definition.name)}: use 1-128 characters of A-Z a-z 0-9 _ - .`)
    if (this.#tools.has(definition.name)) throw new TypeError(`tool ${definition.name} is already registered`)
    const entry: ToolEntry = { tool: this.#toTool(definition), handler, enabled: true }
    this.#tools.set(definition.name, entry)
    this.#changed()
    let name = definition.name
    return {
      get name() {
        return name
      },
      update: (changes) => {
        const { handler: newHandler, ...rest } = changes
        const next = this.#toTool({ ...entry.tool, ...rest })
        if (next.name !== name) {
          if (!TOOL_NAME.test(next.name) || this.#tools.has(next.name)) throw new TypeError(`cannot rename tool to ${next.name}`)
          this.#tools.delete(name)
          name = next.name
          this.#tools.set(name, entry)
        }
        entry.tool = next
        if (newHandler !== undefined) entry.handler = newHandler
        this.#changed()
      },
      enable: () => this.#setEnabled(entry, true),
      disable: () => this.#setEnabled(entry, false),
      remove: () => {
        if (this.#tools.get(name) === entry) {
          this.#tools.delete(name)
          this.#changed()
        }
      },
    }
  }

  /** Enabled tools, in registration order. */
  list(): Tool[] {
    const tools: Tool[] = []
    for (const entry of this.#tools.values()) if (entry.enabled) tools.push(entry.tool)
    return tools
  }

  get(name: string): ToolEntry | undefined {
    const entry = this.#tools.get(name)
    return entry?.enabled ? entry : undefined
  }

  #toTool(definition: ToolDefinition): Tool {
    const tool: Tool = { ...definition, inputSchema: definition.inputSchema ?? EMPTY_OBJECT_SCHEMA }
    // refuse a schema ajv cannot compile now, not at the first call
    this.#validator.compile(tool.inputSchema)
    if (tool.outputSchema !== undefined) this.#validator.compile(tool.outputSchema)
    return tool
  }

  #setEnabled(entry: ToolEntry, enabled: boolean): void {
    if (entry.enabled === enabled) return
    entry.enabled = enabled
    this.#changed()
  }
}
