import { setTimeout as sleep } from 'node:timers/promises'
import { defaults } from '../../config/defaults.js'

/**
 * A fetch that honours one `429 Too Many Requests`: when the answer names a `Retry-After` of at
 * most `maxSeconds` (seconds or an HTTP date, RFC 9110 §10.2.3), it waits that long (aborted with
 * the request's signal) and sends the same request once more; a second 429 is the answer, whose
 * body says when to retry (our servers' JSON-RPC error carries `data.retryAfterSeconds`). A longer
 * wait, or a body that cannot be sent twice (a stream), is returned at once: the caller decides.
 *
 * @example
 * const transport = new StreamableHttpClientTransport(url, { fetch: retryAfterOnce(fetch) })
 * @see https://www.rfc-editor.org/rfc/rfc6585#section-4
 */
export function retryAfterOnce(fetchImpl: typeof fetch, maxSeconds: number = defaults.observe.limits.clientRetryAfterMaxSeconds): typeof fetch {
  return async function fetchRetryingAfterOnce(input, init) {
    const res = await fetchImpl(input, init)
    if (res.status !== 429) return res
    const seconds = retryAfterSeconds(res.headers.get('retry-after'))
    if (seconds === undefined || seconds > maxSeconds || init?.body instanceof ReadableStream || input instanceof Request) return res
    await res.body?.cancel()
    await sleep(seconds * 1000, undefined, init?.signal ? { signal: init.signal } : {}).catch((error: unknown) => {
      throw init?.signal?.aborted ? (init.signal.reason ?? error) : error
    })
    return fetchImpl(input, init)
  }
}

/** A Retry-After value in seconds (0 or more), or undefined when it is neither a number nor a date. */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed)
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000))
}
