import type { JsonSchemaValidator } from '../schema/json-schema.js'
import type { CallEndedListener } from './call-observer.js'
import type { PromptRegistry } from './prompt-registry.js'
import type { ResourceRegistry } from './resource-registry.js'
import type { ToolRegistry } from './tool-registry.js'

/**
 * What the feature methods (feature-methods.ts) read of a server: its registries and the limits
 * of their answers. ServerCore extends it with what only sessions need, so the feature methods
 * do not import server-core.ts, which names the session that dispatches to them.
 */
export interface ServerFeatures {
  readonly pageSize: number
  readonly maxCompletionValues: number
  readonly tools: ToolRegistry
  readonly resources: ResourceRegistry
  readonly prompts: PromptRegistry
  readonly validator: JsonSchemaValidator
  /** Who hears of each tools/call, resources/read and prompts/get answered (McpServer.onCallEnded); usually none. */
  readonly callEnded: CallEndedListener[]
}
