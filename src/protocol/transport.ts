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
  /** The session id, for transports that have sessions. */
  readonly sessionId?: string | undefined
  /** Told the negotiated version after initialize (HTTP clients send it as a header). */
  setProtocolVersion?(version: string): void
}
