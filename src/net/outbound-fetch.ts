import { defaults } from '../config/defaults.js'
import { guardedFetch, OutboundAddressError } from './guarded-fetch.js'

/** Whose URL an outbound request goes to: that decides its time budget and whether private addresses may be reached. */
export type OutboundTarget =
  /**
   * A server the operator configured (a trusted issuer, the upstream identity provider):
   * internal servers are common, so private addresses are reached when its configuration says so.
   */
  | { configuredBy: 'operator'; allowPrivateAddresses: boolean; setting: string }
  /** A URL a client chose (a client ID metadata document, a client's `jwks_uri`): never a private address outside development. */
  | { configuredBy: 'client'; allowPrivateAddresses: boolean }

/** The fetch() signature our callers (openid-client, discovery, JWKS) use. */
export type OutboundFetch = (url: string | URL, init?: RequestInit) => Promise<Response>

/** A redirect answered to an outbound request: it is not followed. */
export class OutboundRedirectError extends Error {
  override name = 'OutboundRedirectError'
}

/**
 * The one fetch of the authorization server's outbound requests: guardedFetch (address checked
 * before connecting, pinned, one deadline, body cut at `defaults.outbound.maxBytes`) with the
 * budget for `target`, and a redirect turned into an error that says where it pointed. A refused
 * private address of an operator-configured server names the setting that allows it.
 */
export function outboundFetch(target: OutboundTarget): OutboundFetch {
  const o = defaults.outbound
  const timeoutMs = target.configuredBy === 'operator' ? o.timeoutMs : o.clientUrlTimeoutMs
  return async function outbound(url, init = {}) {
    let response: Response
    try {
      response = await guardedFetch(url, init, { timeoutMs, allowPrivateAddresses: target.allowPrivateAddresses, maxBytes: o.maxBytes })
    } catch (error) {
      if (error instanceof OutboundAddressError && target.configuredBy === 'operator') {
        throw new OutboundAddressError(`${error.message} (set ${target.setting}: true to allow an internal server)`, { cause: error })
      }
      throw error
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel()
      const location = response.headers.get('location')
      throw new OutboundRedirectError(`${new URL(url).href} answered ${response.status} redirecting to ${location ?? '(no location)'}: redirects are not followed`)
    }
    return response
  }
}
