import type { JsonRpcParams } from '../jsonrpc/index.js'
import type { RequestOptions } from '../protocol/request-options.js'
import type { SendOptions } from '../protocol/transport.js'
import type { ClientCapabilities, Implementation } from '../schema/capabilities.js'
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult, LoggingLevel } from '../schema/features.js'

/**
 * What a handler reaches of the handshake-era session its request arrived on
 * (`ServerContext.session`): what the client declared and chose, and ways to talk to it.
 * ServerSession is the implementation. Declared here, apart from it, so that the request context
 * and the registries can name a session without importing server-session.ts, which imports them
 * (the method table, the feature methods) in turn.
 */
export interface HandlerSession {
  readonly protocolVersion: string | undefined
  readonly clientCapabilities: ClientCapabilities | undefined
  readonly clientInfo: Implementation | undefined
  readonly sessionId: string | undefined
  readonly initialized: boolean
  /** The resources this client subscribed to (resources/subscribe). */
  readonly subscriptions: string[]
  /** The level the client set with logging/setLevel (undefined: every level). */
  readonly logLevel: LoggingLevel | undefined
  isSubscribed(uri: string): boolean
  ping(options?: RequestOptions): Promise<Record<string, unknown>>
  createMessage(params: CreateMessageParams, options?: RequestOptions): Promise<CreateMessageResult>
  elicit(params: ElicitParams, options?: RequestOptions): Promise<ElicitResult>
  listRoots(options?: RequestOptions): Promise<ListRootsResult>
  /** Send a log message when it passes the level the client set (all levels until it sets one). */
  log(level: LoggingLevel, data: unknown, logger?: string, options?: SendOptions): Promise<void>
  /** Send a notification to this client (list_changed, resources/updated, custom ones). */
  notify(method: string, params?: JsonRpcParams, options?: SendOptions): Promise<void>
  close(): Promise<void>
}
