/**
 * Sends a request through `fetchImpl` with `Authorization: Bearer <token>` added (nothing added
 * when there is no token yet), keeping the caller's headers, whether they came in `init` or on a
 * Request.
 */
export function fetchWithBearer(fetchImpl: typeof fetch, input: Parameters<typeof fetch>[0], init: RequestInit | undefined, token: string | undefined): Promise<Response> {
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`)
  return fetchImpl(input, { ...init, headers })
}
