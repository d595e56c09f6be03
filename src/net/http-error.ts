import { ErrorCode, type RequestId } from '../jsonrpc/index.js'

/**
 * An error of the HTTP transport surface: an HTTP status, a JSON-RPC error body (with the
 * request's id when it is known, else null) and optional headers (`Allow` on 405). Request
 * checks throw it; the handler answers it.
 */
export class HttpError extends Error {
  override name = 'HttpError'
  readonly status: number
  readonly rpcCode: number
  readonly headers: Record<string, string>
  readonly id: RequestId | null
  readonly data: unknown

  constructor(status: number, message: string, options: { rpcCode?: number; headers?: Record<string, string>; cause?: unknown; id?: RequestId | null; data?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.status = status
    this.rpcCode = options.rpcCode ?? (status >= 500 ? ErrorCode.InternalError : ErrorCode.ConnectionClosed)
    this.headers = options.headers ?? {}
    this.id = options.id ?? null
    this.data = options.data
  }

  /** The JSON-RPC error response that goes in the body. */
  body(): string {
    const error = this.data === undefined ? { code: this.rpcCode, message: this.message } : { code: this.rpcCode, message: this.message, data: this.data }
    return JSON.stringify({ jsonrpc: '2.0', id: this.id, error })
  }
}
