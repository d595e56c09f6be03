/** A request the login helper could not make at all: the host and why, instead of "fetch failed". */
export class NetworkError extends Error {
  override name = 'NetworkError'
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
}

/**
 * `fetch` that names the host and the reason when a request fails before any answer
 * ("connection refused to localhost:4000", "no answer from auth.example.com within 10000 ms").
 */
export function describingFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    try {
      return await inner(input, init)
    } catch (error) {
      throw describe(error, input)
    }
  }
}

function describe(error: unknown, input: Parameters<typeof fetch>[0]): unknown {
  if (!(error instanceof Error)) return error
  const url = URL.parse(input instanceof Request ? input.url : String(input))
  const host = url?.host ?? String(input)
  if (error.name === 'TimeoutError') return new NetworkError(`no answer from ${host} in time`, { cause: error })
  if (error.name === 'AbortError') return error
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined
  const code = typeof cause?.code === 'string' ? cause.code : undefined
  if (error.message !== 'fetch failed' && code === undefined) return error
  const reason = (code !== undefined ? REASONS[code] : undefined) ?? (typeof cause?.message === 'string' ? cause.message : error.message)
  return new NetworkError(`${reason} (${host})`, { cause: error })
}
