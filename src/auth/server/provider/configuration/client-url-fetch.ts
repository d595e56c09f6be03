import type { Configuration } from 'oidc-provider'
import { BoundedMap } from '../../../../collections/bounded-map.js'
import { defaults } from '../../../../config/defaults.js'
import { outboundFetch } from '../../../../net/outbound-fetch.js'
import type { ResolvedOptions } from '../../options.js'

/**
 * Fetch for what clients point us at: client ID metadata documents and clients' `jwks_uri`.
 * outboundFetch resolves first, refuses private and special-use addresses before connecting, and
 * connects to the address it checked, within one time budget and body cap, following no redirect
 * (oidc-provider's own dispatcher checks only after connecting). The development setting allows
 * private addresses; a test may bring its own fetch (to trust a test CA), which keeps the budget.
 */
export function clientUrlFetch(options: ResolvedOptions): Pick<Configuration, 'fetch' | 'fetchResponseBodyLimits'> {
  const c = defaults.authServer.clientIdMetadataDocuments
  const timeoutMs = defaults.outbound.clientUrlTimeoutMs
  const allowPrivateAddresses = options.clientIdMetadataDocuments.allowPrivateAddresses
  const guarded = outboundFetch({ configuredBy: 'client', allowPrivateAddresses })
  // oidc-provider may ask for the same failing document twice in one request; a failure is
  // remembered briefly so one request stays within one budget and a target is not hammered.
  const failures = new BoundedMap<string, { error: unknown; until: number }>(c.failureCacheEntries, { evictBeforeSet: true })
  const fetchOnce = (url: string, rest: RequestInit): Promise<Response> => {
    if (options.fetch !== undefined && allowPrivateAddresses) {
      const deadline = AbortSignal.timeout(timeoutMs)
      return options.fetch(url, { ...rest, signal: rest.signal ? AbortSignal.any([rest.signal, deadline]) : deadline })
    }
    return guarded(url, rest)
  }
  const fetch = (async (url: URL | string, init: RequestInit & { dispatcher?: unknown }) => {
    const { dispatcher: _dispatcher, ...rest } = init
    const key = String(url)
    const failed = failures.get(key)
    if (failed !== undefined && failed.until > Date.now()) throw failed.error
    try {
      return await fetchOnce(key, rest)
    } catch (error) {
      failures.set(key, { error, until: Date.now() + c.failureCacheSeconds * 1000 })
      throw error
    }
  }) as unknown as NonNullable<Configuration['fetch']>
  return { fetchResponseBodyLimits: { 'client_id metadata document': c.maxBytes }, fetch }
}
