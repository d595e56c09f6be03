import { ErrorCode } from '../jsonrpc/index.js'

/**
 * An error of the HTTP transport surface: an HTTP status, a JSON-RPC error body (id null) and
 * optional headers (`Allow` on 405). Request checks throw it; the handler answers it.
 */
export class HttpError extends Error {
  override name = 'HttpError'
  readonly status: number
  readonly rpcCode: number
  readonly headers: Record<string, string>

  constructor(status: number, message: string, options: { rpcCode?: number; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.status = status
    this.rpcCode = options.rpcCode ?? (status >= 500 ? ErrorCode.InternalError : ErrorCode.ConnectionClosed)
    this.headers = options.headers ?? {}
  }

  /** The JSON-RPC error response that goes in the body. */
  body(): string {
    return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: this.rpcCode, message: this.message } })
  }
}
