import type { Endpoint } from '../protocol/endpoint.js'
import { acceptServerProtocolVersion } from '../protocol/lifecycle.js'
import type { Transport } from '../protocol/transport.js'
import type { ClientCapabilities, Implementation, InitializeResult } from '../schema/capabilities.js'
import { requireObject, requireString } from './response-shape.js'

export interface InitializeRequest {
  clientInfo: Implementation
  capabilities: ClientCapabilities
  protocolVersion: string
  supportedProtocolVersions: readonly string[]
  signal?: AbortSignal | undefined
}

/**
 * The client half of the lifecycle: send `initialize`, refuse an answer in a version we do not
 * speak, tell the transport the version, then send `notifications/initialized`. Any failure
 * closes the connection, so a half-initialized session never lingers.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
 */
export async function initializeSession(endpoint: Endpoint, transport: Transport, request: InitializeRequest): Promise<InitializeResult> {
  try {
    const result = await endpoint.request(
      'initialize',
      { protocolVersion: request.protocolVersion, capabilities: request.capabilities, clientInfo: request.clientInfo },
      request.signal === undefined ? {} : { signal: request.signal },
    )
    requireString(result, 'protocolVersion', 'initialize')
    requireObject(result, 'capabilities', 'initialize')
    requireObject(result, 'serverInfo', 'initialize')
    const version = acceptServerProtocolVersion(result.protocolVersion, request.supportedProtocolVersions)
    // HTTP transports send MCP-Protocol-Version from the very next request on, initialized included
    transport.setProtocolVersion?.(version)
    await endpoint.notify('notifications/initialized')
    return result as InitializeResult
  } catch (error) {
    await endpoint.close().catch(() => undefined)
    throw error
  }
}
