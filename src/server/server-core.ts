import type { EndpointOptions } from '../protocol/endpoint.js'
import type { Implementation, ServerCapabilities } from '../schema/capabilities.js'
import type { ServerFeatures } from './server-features.js'
import type { ServerSession } from './server-session.js'

/** What an McpServer shares with each of its sessions. */
export interface ServerCore extends ServerFeatures {
  readonly serverInfo: Implementation
  readonly instructions: string | undefined
  readonly supportedProtocolVersions: readonly string[]
  /** The supported revisions negotiated with initialize. */
  readonly handshakeProtocolVersions: readonly string[]
  readonly endpointOptions: EndpointOptions
  capabilities(): ServerCapabilities
  /** A session of this server closed. */
  sessionClosed(session: ServerSession): void
  /** An error of a session that sets no `onerror` of its own. */
  reportError(error: Error): void
}
