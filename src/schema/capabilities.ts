/**
 * Capabilities exchanged at initialize.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation
 */
export interface ClientCapabilities {
  experimental?: Record<string, object>
  roots?: { listChanged?: boolean }
  sampling?: { context?: object; tools?: object }
  elicitation?: { form?: object; url?: object }
  tasks?: object
  [key: string]: unknown
}

export interface ServerCapabilities {
  experimental?: Record<string, object>
  logging?: object
  completions?: object
  prompts?: { listChanged?: boolean }
  resources?: { subscribe?: boolean; listChanged?: boolean }
  tools?: { listChanged?: boolean }
  tasks?: object
  [key: string]: unknown
}

export interface Implementation {
  name: string
  version: string
  title?: string
  websiteUrl?: string
  description?: string
  icons?: Icon[]
}

export interface Icon {
  src: string
  mimeType?: string
  sizes?: string[]
  theme?: 'light' | 'dark'
}

export interface InitializeParams {
  protocolVersion: string
  capabilities: ClientCapabilities
  clientInfo: Implementation
  [key: string]: unknown
}

export interface InitializeResult {
  protocolVersion: string
  capabilities: ServerCapabilities
  serverInfo: Implementation
  instructions?: string
  [key: string]: unknown
}
