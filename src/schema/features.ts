import type { Annotations, ContentBlock, Resource, ResourceContents, TextContent, ImageContent, AudioContent } from './content.js'
import type { Icon } from './capabilities.js'

/**
 * Wire shapes of MCP server and client features (2025-11-25, a superset of the earlier revisions).
 * @see https://modelcontextprotocol.io/specification/2025-11-25/schema
 */
type Meta = { _meta?: Record<string, unknown> }

export interface PaginatedParams {
  cursor?: string
}

export interface PaginatedResult {
  nextCursor?: string
}

// --- tools
export interface JsonSchemaObject {
  type: 'object'
  properties?: Record<string, object>
  required?: string[]
  [key: string]: unknown
}

export interface ToolAnnotations {
  title?: string
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

export interface Tool extends Meta {
  name: string
  title?: string
  description?: string
  inputSchema: JsonSchemaObject
  outputSchema?: JsonSchemaObject
  annotations?: ToolAnnotations
  icons?: Icon[]
}

export interface CallToolParams extends Meta {
  name: string
  arguments?: Record<string, unknown>
}

export interface CallToolResult extends Meta {
  content: ContentBlock[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

// --- resources (Resource is declared in content.ts, beside the resource_link block that extends it)
export type { Resource }

export interface ResourceTemplate extends Meta {
  uriTemplate: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  annotations?: Annotations
  icons?: Icon[]
}

export interface ReadResourceResult extends Meta {
  contents: ResourceContents[]
}

// --- prompts
export interface PromptArgument {
  name: string
  title?: string
  description?: string
  required?: boolean
}

export interface Prompt extends Meta {
  name: string
  title?: string
  description?: string
  arguments?: PromptArgument[]
  icons?: Icon[]
}

export interface PromptMessage {
  role: 'user' | 'assistant'
  content: ContentBlock
}

export interface GetPromptResult extends Meta {
  description?: string
  messages: PromptMessage[]
}

// --- completion
export type CompletionReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }

export interface CompleteParams {
  ref: CompletionReference
  argument: { name: string; value: string }
  context?: { arguments?: Record<string, string> }
}

export interface CompleteResult extends Meta {
  completion: { values: string[]; total?: number; hasMore?: boolean }
}

// --- logging (RFC 5424 severities, least to most severe)
export const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const
export type LoggingLevel = (typeof LOGGING_LEVELS)[number]

export interface LoggingMessageParams {
  level: LoggingLevel
  logger?: string
  data: unknown
}

// --- sampling
export interface SamplingMessage {
  role: 'user' | 'assistant'
  content: TextContent | ImageContent | AudioContent | Record<string, unknown>
}

export interface ModelPreferences {
  hints?: Array<{ name?: string }>
  costPriority?: number
  speedPriority?: number
  intelligencePriority?: number
}

export interface CreateMessageParams extends Meta {
  messages: SamplingMessage[]
  maxTokens: number
  systemPrompt?: string
  modelPreferences?: ModelPreferences
  includeContext?: 'none' | 'thisServer' | 'allServers'
  temperature?: number
  stopSequences?: string[]
  metadata?: object
  [key: string]: unknown
}

export interface CreateMessageResult extends Meta {
  role: 'user' | 'assistant'
  content: TextContent | ImageContent | AudioContent | Record<string, unknown>
  model: string
  stopReason?: string
  [key: string]: unknown
}

// --- elicitation
export interface ElicitFormParams extends Meta {
  mode?: 'form'
  message: string
  requestedSchema: { type: 'object'; properties: Record<string, object>; required?: string[] }
}

export interface ElicitUrlParams extends Meta {
  mode: 'url'
  message: string
  url: string
  elicitationId: string
}

export type ElicitParams = ElicitFormParams | ElicitUrlParams

export interface ElicitResult extends Meta {
  action: 'accept' | 'decline' | 'cancel'
  content?: Record<string, string | number | boolean | string[]>
}

// --- roots
export interface Root extends Meta {
  uri: string
  name?: string
}

export interface ListRootsResult extends Meta {
  roots: Root[]
}

// --- progress and cancellation
export type ProgressToken = string | number

export interface ProgressParams {
  progressToken: ProgressToken
  progress: number
  total?: number
  message?: string
}

export interface CancelledParams {
  requestId?: string | number
  reason?: string
}
