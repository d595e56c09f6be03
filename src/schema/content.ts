import type { Icon } from './capabilities.js'

/**
 * Content blocks carried by tool results, prompt messages and sampling.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-result
 */
export interface Annotations {
  audience?: Array<'user' | 'assistant'>
  priority?: number
  lastModified?: string
}

interface Meta {
  _meta?: Record<string, unknown>
}

export interface TextContent extends Meta {
  type: 'text'
  text: string
  annotations?: Annotations
}

export interface ImageContent extends Meta {
  type: 'image'
  data: string
  mimeType: string
  annotations?: Annotations
}

export interface AudioContent extends Meta {
  type: 'audio'
  data: string
  mimeType: string
  annotations?: Annotations
}

export interface TextResourceContents extends Meta {
  uri: string
  mimeType?: string
  text: string
}

export interface BlobResourceContents extends Meta {
  uri: string
  mimeType?: string
  blob: string
}

export type ResourceContents = TextResourceContents | BlobResourceContents

export interface EmbeddedResource extends Meta {
  type: 'resource'
  resource: ResourceContents
  annotations?: Annotations
}

/** A resource the server can read (resources/list); features.ts re-exports it with the other resource shapes. */
export interface Resource extends Meta {
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  annotations?: Annotations
  icons?: Icon[]
}

/** A link to a resource the server can read: a Resource with a content type (MCP 2025-06-18). */
export interface ResourceLink extends Resource {
  type: 'resource_link'
}

export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink
