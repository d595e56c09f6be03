import { defaults } from '../../config/defaults.js'

/**
 * The 429 a client over its rate limit gets: `Retry-After` in whole seconds, `Cache-Control:
 * no-store`, and a body it can read: for a JSON-RPC POST a JSON-RPC error answering the request's
 * id (null for a batch, or a body that was not JSON) with `data.retryAfterSeconds`, for anything
 * else (the GET stream, DELETE) an OAuth-style error (`slow_down`, as the authorization server's
 * own limits answer).
 *
 * @example
 * rateLimitedAnswer(true, { jsonrpc: '2.0', id: 7, method: 'tools/call' }, 3, {})
 * // { headers: { 'retry-after': '3', … }, body: '{"jsonrpc":"2.0","id":7,"error":{"code":-32029,…}}' }
 */
export function rateLimitedAnswer(jsonRpc: boolean, body: unknown, retryAfterSeconds: number, cors: Record<string, string>): { headers: Record<string, string>; body: string } {
  const headers = { ...cors, 'cache-control': 'no-store', 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) }
  const message = `Too Many Requests: the rate limit of this resource is spent; retry in ${retryAfterSeconds} s`
  if (!jsonRpc) return { headers, body: JSON.stringify({ error: 'slow_down', error_description: message }) }
  const id = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined
  const error = { code: defaults.observe.limits.rpcErrorCode, message, data: { retryAfterSeconds } }
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null, error }) }
}
