import type { JsonRpcMessage, JsonRpcParams, JsonRpcRequest } from '../jsonrpc/index.js'
import type { AuthInfo } from '../protocol/context.js'
import type { MessageExtra, Transport } from '../protocol/transport.js'
import type { ClientCapabilities, Implementation } from '../schema/capabilities.js'
import type { LoggingLevel, Tool } from '../schema/features.js'
import type { SharedSessionState } from '../sessions/shared-session-state.js'

/**
 * The seam between the HTTP transports (Streamable HTTP, legacy HTTP+SSE, the JSON-only endpoint)
 * and what serves their sessions: the MCP server (`McpServer` implements it), and the coming
 * gateway (by forwarding to a child process). The transports are handed one and import nothing
 * else of the server: JSON-RPC messages go in, answers come out through the transport a session
 * is connected to (or, for a 2026-07-28 request, as the result and through {@link SessionlessIo}).
 */
export interface SessionHost {
  /**
   * True when a session can only be served by the process that created it (the gateway: its
   * child runs there, `restore()` cannot rebuild it elsewhere). With several processes on one
   * shared store and bus, the others then forward the session's requests to that process instead
   * of taking the session up, and the session ends with it. Unset (McpServer): any process
   * restores a session from the store.
   */
  readonly pinnedSessions?: boolean
  /**
   * A session for one connection, not yet connected: the transport connects it, restores its
   * state, delivers messages to it and closes it. `strictLifecycle: false` serves requests that
   * arrive without an initialize on that session (stateless HTTP). `authInfo`: the verified token
   * of the request that opens a stateful session. A host may refuse by throwing an `HttpError`
   * (net/: a 429 or 503 with Retry-After), which the transport answers before anything else.
   */
  createSession(options?: { strictLifecycle?: boolean; authInfo?: AuthInfo | undefined }): HostedSession
  /**
   * Optional: before a stateless request is served (a 2026-07-28 request, a stateless POST, the
   * JSON endpoint), the host may refuse it by throwing an `HttpError` (429 / 503 with Retry-After),
   * answered as it is. The gateway checks that the principal's child runs or may start.
   */
  admitStateless?(authInfo: AuthInfo | undefined): void
  /**
   * Admit one request of the sessionless revision (2026-07-28): read its `_meta` (-32602 when a
   * required member is missing). Transports call this, check their headers against the result,
   * then {@link checkStateless}, then {@link serveStateless}.
   */
  readStatelessMeta(params: JsonRpcParams | undefined): RequestMeta
  /** The revision (-32022) and the method (-32601) of an admitted sessionless request. */
  checkStateless(meta: RequestMeta, method: string): void
  /**
   * Serve one admitted sessionless request (a `subscriptions/listen` stream included: it resolves
   * when the stream ends); rejects with a JsonRpcError for the wire.
   */
  serveStateless(request: JsonRpcRequest, meta: RequestMeta, io: SessionlessIo): Promise<Record<string, unknown>>
  /** The tool `name` as listed (its input schema names the `Mcp-Param-*` headers to check). */
  getTool(name: string): Pick<Tool, 'inputSchema'> | undefined
}

/** One session of a {@link SessionHost}, as a transport drives it. `ServerSession` implements it. */
export interface HostedSession {
  readonly protocolVersion: string | undefined
  readonly clientCapabilities: ClientCapabilities | undefined
  readonly clientInfo: Implementation | undefined
  /** The resources the client subscribed to (a copy; kept by a shared store). */
  readonly subscriptions: string[]
  /** The level the client set (kept by a shared store). */
  readonly logLevel: LoggingLevel | undefined
  onclose?: (() => void) | undefined
  connect(transport: Transport): Promise<void>
  /** Deliver a decoded payload (one message or a batch), not yet checked as JSON-RPC. */
  receive(payload: unknown, extra?: MessageExtra): void
  /** Deliver messages the transport already checked as JSON-RPC. */
  receiveMessages(messages: readonly JsonRpcMessage[], batch: boolean, extra?: MessageExtra): void
  /**
   * Adopt a negotiated state without an initialize on this connection: a stateless HTTP request
   * (version from its MCP-Protocol-Version header), or a session restored from a shared store.
   */
  restore(state: { protocolVersion: string; clientCapabilities?: ClientCapabilities | undefined; clientInfo?: Implementation | undefined } & SharedSessionState): void
  /** Take what the client changed through another process serving the same session. */
  applySharedState(state: SharedSessionState): void
  close(): Promise<void>
}

/** What a 2026-07-28 request says about itself in `params._meta`. */
export interface RequestMeta {
  protocolVersion: string
  clientCapabilities: ClientCapabilities
  clientInfo: Implementation | undefined
  logLevel: LoggingLevel | undefined
}

/**
 * What a transport gives the host for one sessionless request: the answer goes back as the
 * promise's result, everything before it (progress, log, listen-stream notices) through here.
 */
export interface SessionlessIo {
  /** Aborts when the client goes away (HTTP: the response stream closed; stdio: notifications/cancelled). */
  signal: AbortSignal
  /** Send a notification about this request (progress, log) ahead of its response. */
  notify(method: string, params: JsonRpcParams): Promise<void>
  /**
   * Run `callback` once when the client goes away (when `signal` aborts), at once if it has. A
   * stream held open uses this rather than a listener on `signal`, which costs its own
   * AbortController and EventTarget per stream.
   */
  onCancel(callback: () => void): void
  authInfo?: AuthInfo | undefined
  headers?: Readonly<Record<string, string | string[] | undefined>> | undefined
}
