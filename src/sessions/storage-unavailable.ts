/**
 * The storage backend cannot be reached (Redis down, a command timed out). A local error: each
 * surface answers it in its own format — the authorization server with 503
 * `temporarily_unavailable`, the MCP transports with HTTP 503 and a JSON-RPC error — and nothing
 * is written half-way, so the request can simply be sent again once the backend is back.
 */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError'
}

/** True for {@link StorageUnavailableError}, also when it is the cause of another error. */
export function isStorageUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof StorageUnavailableError) return true
  return false
}
