import type { ClientCapabilities } from '../schema/capabilities.js'

/**
 * Options of an McpClient. Timeouts left out take the values of `defaults.protocol`
 * (src/config/defaults.ts).
 *
 * @example
 * new McpClient({ name: 'my-app', version: '1.0.0' }, { protocolVersion: '2025-06-18', requestTimeoutMs: 30_000 })
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
 */
export interface McpClientOptions {
  /**
   * Capabilities to declare at initialize. `sampling`, `elicitation` and `roots` are added on
   * their own when a handler (or roots) is set before connect.
   */
  capabilities?: ClientCapabilities
  /** The protocol version to request; the latest this package speaks unless told otherwise. */
  protocolVersion?: string
  /** Versions the server may answer with; any other answer ends the connection. */
  supportedProtocolVersions?: readonly string[]
  /** Timeout in ms for each outgoing request (RequestOptions.timeoutMs overrides it per call). */
  requestTimeoutMs?: number
  /** Restart a request's timeout when progress for it arrives. */
  resetTimeoutOnProgress?: boolean
  /** Hard ceiling in ms for one request, whatever progress arrives. */
  maxTotalTimeoutMs?: number
}

/**
 * Options of McpClient.connect.
 *
 * @example
 * await client.connect(transport, { signal: AbortSignal.timeout(5_000) })
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization
 */
export interface ConnectOptions {
  /** Aborting gives up on the initialize handshake and closes the transport. */
  signal?: AbortSignal
}
