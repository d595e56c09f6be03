import { ErrorCode } from './codes.js'
import type { JsonRpcErrorObject } from './messages.js'

/**
 * An error that goes on the wire as a JSON-RPC error object. Handlers throw it; the dispatcher
 * turns it into a response. Any other thrown error becomes -32603 with its message.
 *
 * @example
 * throw new JsonRpcError(ErrorCode.InvalidParams, 'Unknown tool: nope')
 */
export class JsonRpcError extends Error {
  override name = 'JsonRpcError'
  readonly code: number
  readonly data: unknown

  constructor(code: number, message: string, data?: unknown, options?: ErrorOptions) {
    super(message, options)
    this.code = code
    this.data = data
  }

  /** The wire form of this error. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data }
  }

  /** Rebuild an error received from the peer. */
  static fromObject(error: JsonRpcErrorObject): JsonRpcError {
    return new JsonRpcError(error.code, error.message, error.data)
  }

  /** Map anything a handler threw to a wire error; only JsonRpcError keeps its code. */
  static from(error: unknown): JsonRpcError {
    if (error instanceof JsonRpcError) return error
    const message = error instanceof Error ? error.message : String(error)
    return new JsonRpcError(ErrorCode.InternalError, message || 'Internal error', undefined, { cause: error })
  }
}
