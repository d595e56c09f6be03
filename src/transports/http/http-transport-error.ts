/**
 * A local error of the HTTP client transports: what the server answered (status, body, the
 * `WWW-Authenticate` challenge an auth layer acts on) or what went wrong on our side. It never
 * goes on the wire.
 */
export type HttpTransportErrorCode = 'http_status' | 'unexpected_content_type' | 'timeout' | 'closed' | 'invalid_endpoint' | 'stream_failed'

export class HttpTransportError extends Error {
  override name = 'HttpTransportError'
  readonly code: HttpTransportErrorCode
  readonly status: number | undefined
  /** The `WWW-Authenticate` header of a 401/403, for an auth layer. */
  readonly wwwAuthenticate: string | undefined

  constructor(code: HttpTransportErrorCode, message: string, options: { status?: number; wwwAuthenticate?: string | null; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.status = options.status
    this.wwwAuthenticate = options.wwwAuthenticate ?? undefined
  }
}
