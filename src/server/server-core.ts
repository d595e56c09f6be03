import type { EndpointOptions } from '../protocol/endpoint.js'
import type { Implementation, ServerCapabilities } from '../schema/capabilities.js'
import type { JsonSchemaValidator } from '../schema/json-schema.js'
import type { PromptRegistry } from './prompt-registry.js'
import type { ServerSession } from './server-session.js'
import type { ResourceRegistry } from './resource-registry.js'
import type { ToolRegistry } from './tool-registry.js'

/** What an McpServer shares with each of its sessions. */
export interface ServerCore {
  readonly serverInfo: Implementation
  readonly instructions: string | undefined
  readonly supportedProtocolVersions: readonly string[]
  /** The supported revisions negotiated with initialize. */
  readonly handshakeProtocolVersions: readonly string[]
  readonly pageSize: number
  readonly maxCompletionValues: number
  readonly endpointOptions: EndpointOptions
  readonly tools: ToolRegistry
  readonly resources: ResourceRegistry
  readonly prompts: PromptRegistry
  readonly validator: JsonSchemaValidator
  capabilities(): ServerCapabilities
  /** A session of this server closed. */
  sessionClosed(session: ServerSession): void
  /** An error of a session that sets no `onerror` of its own. */
  reportError(error: Error): void
}
