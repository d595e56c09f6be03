import type { EndpointOptions } from '../protocol/endpoint.js'
import type { Implementation, ServerCapabilities } from '../schema/capabilities.js'
import type { ServerFeatures } from './server-features.js'

/**
 * What an McpServer shares with each of its sessions. `Session` is the session type it is told of
 * when one closes (ServerSession): a parameter, so this module does not import the session's.
 */
export interface ServerCore<Session = unknown> extends ServerFeatures {
  readonly serverInfo: Implementation
  readonly instructions: string | undefined
  readonly supportedProtocolVersions: readonly string[]
  /** The supported revisions negotiated with initialize. */
  readonly handshakeProtocolVersions: readonly string[]
  readonly endpointOptions: EndpointOptions
  capabilities(): ServerCapabilities
  /** A session of this server closed. */
  sessionClosed(session: Session): void
  /** An error of a session that sets no `onerror` of its own. */
  reportError(error: Error): void
}
