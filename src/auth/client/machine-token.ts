import * as client from 'openid-client'
import { DpopKey, fetchWithDpop, generateDpopKey, serverSupportsDpop } from './dpop.js'
import { fetchWithBearer } from './fetch-with-bearer.js'

/** A machine client's access token and, when it is DPoP-bound, the key it is bound to. */
export interface HeldToken {
  token: string
  dpop?: DpopKey
}

/** Sends a request with the held token: DPoP scheme and a proof for a bound one, Bearer otherwise, nothing without one. */
export function sendWithToken(fetchImpl: typeof fetch, input: Parameters<typeof fetch>[0], init: RequestInit | undefined, held: HeldToken | undefined): Promise<Response> {
  return held?.dpop !== undefined ? fetchWithDpop(fetchImpl, input, init, held.token, held.dpop) : fetchWithBearer(fetchImpl, input, init, held?.token)
}

/**
 * The DPoP side of a machine client's token request: a key of the instance's own (made on first
 * use, kept in memory: a new instance gets new tokens anyway) when the server lists our algorithm.
 */
export class MachineDpop {
  #key: Promise<DpopKey> | undefined

  /** openid-client's DPoP option for a token request at `server`, and the key, when DPoP is used. */
  async forRequest(server: client.ServerMetadata, config: client.Configuration): Promise<{ key?: DpopKey; options?: client.DPoPOptions }> {
    if (!serverSupportsDpop(server)) return {}
    const key = await (this.#key ??= generateDpopKey().then((stored) => DpopKey.load(stored)))
    return { key, options: { DPoP: client.getDPoPHandle(config, key.keyPair) } }
  }

  /** The held token of a token response: bound to `key` when the server says `token_type: DPoP`. */
  static held(response: { access_token: string; token_type: string }, key: DpopKey | undefined): HeldToken {
    return { token: response.access_token, ...(key !== undefined && response.token_type.toLowerCase() === 'dpop' ? { dpop: key } : {}) }
  }
}
