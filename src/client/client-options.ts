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
  /**
   * Pin a protocol version. A handshake-era version (2025-11-25 or older) skips `server/discover`
   * and asks for it at `initialize` (the server may answer another of `supportedProtocolVersions`);
   * a stateless one (2026-07-28) must be offered by `server/discover`, with no fallback. Left out,
   * the client tries the newest stateless revision first and falls back to `initialize` with the
   * newest handshake-era one when the server does not speak it.
   */
  protocolVersion?: string
  /** Versions the client may end up speaking; any other answer ends the connection. Default: all this package speaks. */
  supportedProtocolVersions?: readonly string[]
  /**
   * In the stateless era, keep a `subscriptions/listen` stream open for the list changes the
   * server declares (the handshake era's GET stream does the same). Default true.
   */
  listenForChanges?: boolean
  /** Most input-required rounds one call answers (2026-07-28); default `defaults.client.maxInputRounds`. */
  maxInputRounds?: number
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
