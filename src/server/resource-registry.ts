import { ErrorCode, JsonRpcError } from '../jsonrpc/index.js'
import type { ReadResourceResult, Resource, ResourceTemplate } from '../schema/features.js'
import type { ServerContext } from './context.js'
import { UriTemplate } from './uri-template.js'

export type ReadResource = (uri: string, context: ServerContext) => ReadResourceResult | Promise<ReadResourceResult>
export type ReadTemplatedResource = (uri: string, variables: Record<string, string>, context: ServerContext) => ReadResourceResult | Promise<ReadResourceResult>
/** Completes one template variable from what the user typed so far. */
export type Completer = (value: string, context: { arguments: Record<string, string> }) => string[] | Promise<string[]>

export interface TemplateCallbacks {
  read: ReadTemplatedResource
  /** Concrete resources this template stands for, merged into resources/list. */
  list?: () => Resource[] | Promise<Resource[]>
  /** Completers per template variable, for completion/complete with ref/resource. */
  complete?: Record<string, Completer>
}

export interface Removable {
  remove(): void
}

interface TemplateEntry {
  template: ResourceTemplate
  matcher: UriTemplate
  callbacks: TemplateCallbacks
}

/**
 * The resources and resource templates of one server, shared by all its sessions.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/resources
 */
export class ResourceRegistry {
  readonly #resources = new Map<string, { resource: Resource; read: ReadResource }>()
  readonly #templates = new Map<string, TemplateEntry>()
  readonly #changed: () => void

  constructor(changed: () => void) {
    this.#changed = changed
  }

  get size(): number {
    return this.#resources.size + this.#templates.size
  }

  register(resource: Resource, read: ReadResource): Removable {
    if (this.#resources.has(resource.uri)) throw new TypeError(`resource ${resource.uri} is already registered`)
    const entry = { resource, read }
    this.#resources.set(resource.uri, entry)
    this.#changed()
    return { remove: () => this.#remove(this.#resources, resource.uri, entry) }
  }

  registerTemplate(template: ResourceTemplate, callbacks: TemplateCallbacks): Removable {
    if (this.#templates.has(template.uriTemplate)) throw new TypeError(`resource template ${template.uriTemplate} is already registered`)
    const entry: TemplateEntry = { template, matcher: new UriTemplate(template.uriTemplate), callbacks }
    this.#templates.set(template.uriTemplate, entry)
    this.#changed()
    return { remove: () => this.#remove(this.#templates, template.uriTemplate, entry) }
  }

  async list(): Promise<Resource[]> {
    const listed = [...this.#resources.values()].map((e) => e.resource)
    for (const { callbacks } of this.#templates.values()) {
      if (callbacks.list !== undefined) listed.push(...(await callbacks.list()))
    }
    return listed
  }

  listTemplates(): ResourceTemplate[] {
    return [...this.#templates.values()].map((e) => e.template)
  }

  /** Whether `uri` names a resource we can read (statically or through a template). */
  has(uri: string): boolean {
    if (this.#resources.has(uri)) return true
    for (const entry of this.#templates.values()) if (entry.matcher.match(uri) !== undefined) return true
    return false
  }

  async read(uri: string, context: ServerContext): Promise<ReadResourceResult> {
    const exact = this.#resources.get(uri)
    if (exact !== undefined) return exact.read(uri, context)
    for (const entry of this.#templates.values()) {
      const variables = entry.matcher.match(uri)
      if (variables !== undefined) return entry.callbacks.read(uri, variables, context)
    }
    throw new JsonRpcError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri })
  }

  /** The completer of one template variable; undefined when the template has none for it. */
  completer(uriTemplate: string, variable: string): Completer | undefined {
    const entry = this.#templates.get(uriTemplate)
    if (entry === undefined) throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: unknown resource template ${uriTemplate}`)
    return entry.callbacks.complete?.[variable]
  }

  #remove<V>(map: Map<string, V>, key: string, entry: V): void {
    if (map.get(key) !== entry) return
    map.delete(key)
    this.#changed()
  }
}
