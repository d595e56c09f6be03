import { defaults } from '../../config/defaults.js'
import { ErrorCode, type RequestId } from '../../jsonrpc/index.js'
import { HttpError } from '../../net/http-error.js'
import { isStorageUnavailable } from '../../sessions/storage-unavailable.js'

/**
 * The answer to a request that needed the shared store (Redis) while it could not be reached: HTTP
 * 503 with `Retry-After`, and a JSON-RPC error body carrying the request's id when it is known.
 * -32000 is the implementation-defined server error the transports (ours and the SDKs') answer
 * transport-level failures with. Nothing was written half-way: the client may simply retry.
 */
export function storageUnavailableError(cause: unknown, id: RequestId | null = null): HttpError {
  return new HttpError(503, 'Service Unavailable: session storage cannot be reached; retry shortly', {
    rpcCode: ErrorCode.ConnectionClosed,
    headers: { 'Retry-After': String(defaults.streamableHttp.storageRetryAfterSeconds) },
    cause,
    id,
  })
}

/** `error` as the HTTP transports answer it: a storage outage becomes 503, anything else is left as it is. */
export function asHttpFailure(error: unknown, id: RequestId | null = null): unknown {
  return isStorageUnavailable(error) && !(error instanceof HttpError) ? storageUnavailableError(error, id) : error
}

/** The failure of a save the answer waited for: 503 when the store is unreachable. */
export function saveFailure(error: unknown, id: RequestId | null): HttpError {
  return isStorageUnavailable(error) ? storageUnavailableError(error, id) : new HttpError(500, 'Internal server error', { cause: error, id })
}
