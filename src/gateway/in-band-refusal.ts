import { JsonRpcError } from '../jsonrpc/index.js'
import { HttpError } from '../net/http-error.js'

/**
 * A refusal answered inside a stream already open (a 200 with SSE or JSON): the pool's 429 / 503
 * becomes the JSON-RPC error it carries, `data.retryAfter` saying when to try again, since the
 * HTTP status and its Retry-After header have gone.
 */
export function inBandRefusal(error: unknown): JsonRpcError {
  if (error instanceof HttpError) return new JsonRpcError(error.rpcCode, error.message, error.data)
  return JsonRpcError.from(error)
}
