import * as client from 'openid-client'
import { DpopKey, fetchWithDpop, generateDpopKey } from './dpop.js'
import { fetchWithBearer } from './fetch-with-bearer.js'
import type { TokenStore } from './token-store.js'
import { challengeParams } from './parse-www-authenticate.js'
import { defaults } from '../../config/defaults.js'

/** A machine client's access token and, when it is DPoP-bound, the key it is bound to. */
export interface HeldToken {
  token: string
  dpop?: DpopKey
  /** Taken from the token store, not from a token request of this instance. */
  kept?: true
  /** The scope it was granted: asked for again when it is refused with a challenge naming none. */
  scope?: string
}

/** Sends a request with the held token: DPoP scheme and a proof for a bound one, Bearer otherwise, nothing without one. */
export function sendWithToken(fetchImpl: typeof fetch, input: Parameters<typeof fetch>[0], init: RequestInit | undefined, held: HeldToken | undefined): Promise<Response> {
  return held?.dpop !== undefined ? fetchWithDpop(fetchImpl, input, init, held.token, held.dpop) : fetchWithBearer(fetchImpl, input, init, held?.token)
}

/**
 * The DPoP side of a machine client's token request, when the token is to be bound: the
 * token store's key for the issuer when tokens are kept there (a kept bound token needs its key
 * in the next run), else a key of the instance's own, made on first use and kept in memory.
 */
export class MachineDpop {
  #key: Promise<DpopKey> | undefined
  readonly #store: TokenStore | undefined

  constructor(store?: TokenStore) {
    this.#store = store
  }

  /** The key tokens of `issuer` are bound to. */
  key(issuer: string): Promise<DpopKey> {
    if (this.#key !== undefined) return this.#key
    const store = this.#store
    const stored = store?.dpopKey !== undefined ? store.dpopKey(issuer, () => generateDpopKey()) : generateDpopKey()
    const key = stored.then((found) => DpopKey.load(found))
    this.#key = key
    key.catch(() => {
      this.#key = undefined
    })
    return key
  }

  /** openid-client's DPoP option for a token request at `server`, and the key, when the token is to be bound (`bind`). */
  async forRequest(server: client.ServerMetadata, config: client.Configuration, bind: boolean): Promise<{ key?: DpopKey; options?: client.DPoPOptions }> {
    if (!bind) return {}
    const key = await this.key(server.issuer)
    return { key, options: { DPoP: client.getDPoPHandle(config, key.keyPair) } }
  }

  /** The held token of a token response: bound to `key` when the server says `token_type: DPoP`; `requested` the scope asked for. */
  static held(response: { access_token: string; token_type: string; scope?: string }, key: DpopKey | undefined, requested?: string): HeldToken {
    const scope = response.scope ?? requested
    return {
      token: response.access_token,
      ...(key !== undefined && response.token_type.toLowerCase() === 'dpop' ? { dpop: key } : {}),
      ...(scope !== undefined ? { scope } : {}),
    }
  }
}

/**
 * Where a machine client's tokens are kept in the token store: under the resource with a fragment
 * naming the grant and the client. A resource indicator has no fragment (RFC 8707 §2), so these
 * never meet a user login's tokens for the same server, nor another client's or grant's.
 */
export function machineTokenKey(resource: string, grant: string, clientId: string): string {
  const url = new URL(resource)
  url.hash = `machine=${encodeURIComponent(grant)}&client=${encodeURIComponent(clientId)}`
  return url.href
}

/**
 * A machine client's tokens kept across runs (issue 28): a new process uses a kept token until it
 * is about to expire instead of asking again, so a one-time workload assertion (its `jti`) is
 * presented once, not on every run.
 */
export class MachineTokenCache {
  readonly #store: TokenStore | undefined
  readonly #dpop: MachineDpop

  constructor(store: TokenStore | undefined, dpop: MachineDpop) {
    this.#store = store
    this.#dpop = dpop
  }

  /** The kept token, while it has more than the refresh skew to live. */
  async get(issuer: string, key: string): Promise<HeldToken | undefined> {
    const tokens = await this.#store?.getTokens(issuer, key)
    if (tokens?.expires_at === undefined || tokens.expires_at - defaults.oauthClient.refreshSkewSeconds <= Date.now() / 1000) return undefined
    const scope = tokens.scope !== undefined ? { scope: tokens.scope } : {}
    if (tokens.token_type?.toLowerCase() !== 'dpop') return { token: tokens.access_token, kept: true, ...scope }
    return { token: tokens.access_token, dpop: await this.#dpop.key(issuer), kept: true, ...scope }
  }

  /** Keeps a token response (one without an expiry is not kept: when to stop using it is unknown). */
  async set(issuer: string, key: string, response: { access_token: string; token_type: string; expires_in?: number; scope?: string }, requested?: string): Promise<void> {
    if (this.#store === undefined || response.expires_in === undefined) return
    const scope = response.scope ?? requested
    await this.#store.setTokens(issuer, key, {
      access_token: response.access_token,
      token_type: response.token_type,
      expires_at: Math.floor(Date.now() / 1000) + response.expires_in,
      ...(scope !== undefined ? { scope } : {}),
    })
  }

  /** Forgets a kept token the server refused. */
  async delete(issuer: string, key: string): Promise<void> {
    await this.#store?.deleteTokens(issuer, key)
  }
}

/**
 * A machine client's `fetch`: the held token on every request; on a 401 a token from `obtain`
 * (a kept one when none was sent, a new one when the sent one was refused), and once more a new
 * one when the kept token is refused too (revoked before its expiry).
 */
export function machineFetch(
  fetchImpl: typeof fetch,
  held: { get(): Promise<HeldToken> | undefined; set(token: Promise<HeldToken>): void },
  obtain: (challenge: string | null, refused: HeldToken | undefined) => Promise<HeldToken>,
): typeof fetch {
  return async (input, init) => {
    const current = await held.get()?.catch(() => undefined)
    let response = await sendWithToken(fetchImpl, input, init, current)
    for (let refused = current, attempt = 0; response.status === 401 && attempt < 2; attempt++) {
      if (attempt === 1 && refused?.kept !== true) break
      const challenge = response.headers.get('www-authenticate')
      await response.body?.cancel()
      const token = obtain(challenge, refused)
      held.set(token)
      refused = await token
      response = await sendWithToken(fetchImpl, input, init, refused)
    }
    return response
  }
}

/**
 * The challenge of an unauthenticated MCP request to `serverUrl` (a `ping`): the scope the server
 * asks for, before a token is requested without a request of the caller's own to refuse.
 */
export async function probeChallenge(fetchImpl: typeof fetch, serverUrl: string): Promise<string | null> {
  try {
    const response = await fetchImpl(serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
      signal: AbortSignal.timeout(defaults.oauthClient.requestTimeoutMs),
    })
    await response.body?.cancel()
    return response.status === 401 ? response.headers.get('www-authenticate') : null
  } catch {
    return null
  }
}

/**
 * The scope of a machine client's token request: the caller's, else the one the server's challenge
 * names, else the refused token's (a challenge for an expired or revoked token names none), else
 * the resource metadata's.
 */
export function machineScope(configured: string | undefined, challenge: string | null, refused: HeldToken | undefined, discovered: string | undefined): string | undefined {
  return configured ?? challengeParams(challenge)?.['scope'] ?? refused?.scope ?? discovered
}
