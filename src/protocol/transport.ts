import type { JsonRpcPayload, RequestId } from '../jsonrpc/index.js'
import type { AuthInfo } from './context.js'

/** What a transport knows about the HTTP request (or process) a message arrived on. */
export interface MessageExtra {
  /** Verified credentials, filled by an auth layer in front of an HTTP transport. */
  authInfo?: AuthInfo
  /** Request headers, for transports that have them. */
  headers?: Readonly<Record<string, string | string[] | undefined>>
}

export interface SendOptions {
  /**
   * The inbound request this outgoing message belongs to. HTTP transports use it to put the
   * message on the stream that request opened, so no message goes on two streams.
   */
  relatedRequestId?: RequestId
  /**
   * Request headers for this message, on transports that have headers (the `Mcp-Param-*` headers
   * of 2026-07-28, values already encoded). Others ignore them.
   */
  headers?: Readonly<Record<string, string>>
}

/** Where a transport delivers its events when it supports `attach`: one object, no callbacks. */
export interface TransportSink {
  receive(payload: unknown, extra?: MessageExtra): void
  error(error: Error): void
  closed(): void
}

/**
 * The seam between the MCP engine and a byte carrier (stdio, HTTP, in-memory). A transport
 * decodes JSON and hands over the value unvalidated; the endpoint validates it.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports
 */
export interface Transport {
  start(): Promise<void>
  send(payload: JsonRpcPayload, options?: SendOptions): Promise<void>
  close(): Promise<void>
  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void
  /**
   * Optional: deliver messages, errors and the close to `sink` instead of the three callbacks
   * above (a server transport holding thousands of connections then keeps no closures for them).
   * An endpoint calls it in `connect` when it is there, and sets the callbacks otherwise.
   */
  attach?(sink: TransportSink): void
  /** The session id, for transports that have sessions. */
  readonly sessionId?: string | undefined
  /**
   * Told the negotiated version (after initialize, or before server/discover in 2026-07-28);
   * undefined goes back to no version, as before a handshake. HTTP clients send it as a header,
   * and a stateless revision switches them to sessionless requests.
   */
  setProtocolVersion?(version: string | undefined): void
}
