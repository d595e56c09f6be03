/**
 * JSON-RPC 2.0 and MCP error codes.
 * @see https://www.jsonrpc.org/specification#error_object
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic (error handling)
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP: the connection closed before a response arrived (local, SDK-compatible value). */
  ConnectionClosed: -32000,
  /** MCP: an outgoing request timed out (local, SDK-compatible value). */
  RequestTimeout: -32001,
  /** MCP: resources/read for a URI the server does not have. */
  ResourceNotFound: -32002,
  /** MCP 2026-07-28: HTTP headers disagree with the body, or a required one is missing (HTTP 400). */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request needs a client capability its `_meta` did not declare (HTTP 400). */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the request's protocol version is not one the server speaks (HTTP 400). */
  UnsupportedProtocolVersion: -32022,
  /** MCP 2025-11-25: a URL-mode elicitation must complete first. */
  UrlElicitationRequired: -32042,
} as const

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode]
