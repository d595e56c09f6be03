import type { JsonRpcParams } from '../jsonrpc/index.js'
import type { ClientCapabilities, Implementation } from '../schema/capabilities.js'
import type { LoggingLevel } from '../schema/features.js'
import { META } from '../schema/revisions.js'

/** What a stateless-era client says about itself on every request. */
export interface RequestEnvelope {
  protocolVersion: string
  capabilities: ClientCapabilities
  clientInfo: Implementation
  /** The level `setLoggingLevel` chose: log notifications are asked for per request in 2026-07-28. */
  logLevel?: LoggingLevel | undefined
}

/**
 * `params` with the stateless revision's `_meta` keys (protocol version, client capabilities,
 * client info, log level) added. Keys the caller put in `_meta` stay; the reserved ones are ours,
 * so a caller cannot make the body disagree with the MCP-Protocol-Version header.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta
 */
export function withRequestMeta(params: JsonRpcParams | undefined, envelope: RequestEnvelope): JsonRpcParams {
  const meta: Record<string, unknown> = {
    ...(params?._meta as Record<string, unknown> | undefined),
    [META.protocolVersion]: envelope.protocolVersion,
    [META.clientCapabilities]: envelope.capabilities,
    [META.clientInfo]: envelope.clientInfo,
  }
  if (envelope.logLevel !== undefined) meta[META.logLevel] = envelope.logLevel
  return { ...params, _meta: meta }
}
