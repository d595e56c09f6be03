import { ErrorCode, JsonRpcError } from '../jsonrpc/index.js'
import type { GetPromptResult, Prompt } from '../schema/features.js'
import type { ServerContext } from './context.js'
import type { Completer, Removable } from './resource-registry.js'

export type GetPrompt = (args: Record<string, string>, context: ServerContext) => GetPromptResult | Promise<GetPromptResult>

interface PromptEntry {
  prompt: Prompt
  get: GetPrompt
  complete: Record<string, Completer> | undefined
}

/**
 * The prompts of one server, shared by all its sessions.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/prompts
 */
export class PromptRegistry {
  readonly #prompts = new Map<string, PromptEntry>()
  readonly #changed: () => void

  constructor(changed: () => void) {
    this.#changed = changed
  }

  get size(): number {
    return this.#prompts.size
  }

  register(prompt: Prompt, get: GetPrompt, complete?: Record<string, Completer>): Removable {
    if (this.#prompts.has(prompt.name)) throw new TypeError(`prompt ${prompt.name} is already registered`)
    const entry = { prompt, get, complete }
    this.#prompts.set(prompt.name, entry)
    this.#changed()
    return {
      remove: () => {
        if (this.#prompts.get(prompt.name) !== entry) return
        this.#prompts.delete(prompt.name)
        this.#changed()
      },
    }
  }

  list(): Prompt[] {
    return [...this.#prompts.values()].map((e) => e.prompt)
  }

  /** prompts/get: unknown prompt, a missing required argument or a non-string value → -32602. */
  async get(name: string, args: unknown, context: ServerContext): Promise<GetPromptResult> {
    const entry = this.#entry(name)
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: arguments must be an object')
    }
    const values = (args ?? {}) as Record<string, unknown>
    for (const [key, value] of Object.entries(values)) {
      if (typeof value !== 'string') throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: argument ${key} must be a string`)
    }
    for (const argument of entry.prompt.arguments ?? []) {
      if (argument.required === true && values[argument.name] === undefined) {
        throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: missing required argument ${argument.name} for prompt ${name}`)
      }
    }
    return entry.get(values as Record<string, string>, context)
  }

  completer(name: string, argument: string): Completer | undefined {
    return this.#entry(name).complete?.[argument]
  }

  #entry(name: string): PromptEntry {
    const entry = this.#prompts.get(name)
    if (entry === undefined) throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: unknown prompt ${name}`)
    return entry
  }
}
