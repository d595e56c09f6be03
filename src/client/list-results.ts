import type { PaginatedParams, PaginatedResult, Prompt, Resource, ResourceTemplate, Tool } from '../schema/features.js'

/**
 * Results of the paginated list methods, as the client returns them.
 *
 * @example
 * const { tools, nextCursor } = await client.listTools()
 * if (nextCursor !== undefined) await client.listTools({ cursor: nextCursor })
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination
 */
export interface ListToolsResult extends PaginatedResult {
  tools: Tool[]
  _meta?: Record<string, unknown>
}

export interface ListResourcesResult extends PaginatedResult {
  resources: Resource[]
  _meta?: Record<string, unknown>
}

export interface ListResourceTemplatesResult extends PaginatedResult {
  resourceTemplates: ResourceTemplate[]
  _meta?: Record<string, unknown>
}

export interface ListPromptsResult extends PaginatedResult {
  prompts: Prompt[]
  _meta?: Record<string, unknown>
}

export type ListParams = PaginatedParams
