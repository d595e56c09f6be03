/**
 * Local errors of the MCP engine: they describe what happened on our side (a timeout, a closed
 * connection, a capability the peer never declared) and never go on the wire. What the peer
 * answered arrives as a JsonRpcError instead.
 */
export type LocalErrorCode =
  | 'capability_not_supported'
  | 'request_timeout'
  | 'request_cancelled'
  | 'connection_closed'
  | 'not_connected'
  | 'too_many_pending_requests'
  | 'unsupported_protocol_version'
  | 'invalid_response'
  | 'invalid_progress'
  | 'invalid_state'
  | 'too_many_input_rounds'

export class LocalError extends Error {
  override name = 'LocalError'
  readonly code: LocalErrorCode

  constructor(code: LocalErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.code = code
  }
}
