export type StdioErrorCode =
  /** A line grew past `maxLineBytes` before its newline; it was discarded. */
  | 'line_too_long'
  /** A line's bytes are not valid UTF-8. */
  | 'invalid_utf8'
  /** The server process could not be started (missing command, bad cwd, permissions). */
  | 'spawn_failed'
  /** A message was sent before start(), after close(), or after the stream closed. */
  | 'not_connected'
  /** start() was called twice. */
  | 'invalid_state'

/**
 * A local error of the stdio transports. It describes what happened on our side of the pipe and
 * never goes on the wire; the cause (an errno error, a decoder error) travels in `cause`.
 *
 * @example
 * transport.onerror = (error) => {
 *   if (error instanceof StdioError && error.code === 'line_too_long') console.error('peer sent a huge line')
 * }
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio
 */
export class StdioError extends Error {
  override name = 'StdioError'
  readonly code: StdioErrorCode

  constructor(code: StdioErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.code = code
  }
}
