import { createHash, randomUUID } from 'node:crypto'
import { exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose'
import { defaults } from '../../config/defaults.js'
import { parseWwwAuthenticate } from './parse-www-authenticate.js'

/** A client's DPoP key as the token store keeps it: the private JWK (the public one is derived from it). */
export interface StoredDpopKey {
  alg: string
  privateJwk: JWK
}

/** Whether an authorization server's metadata lists `alg` among its DPoP proof algorithms (RFC 9449 §5.1). */
export function serverSupportsDpop(server: { dpop_signing_alg_values_supported?: unknown }, alg: string = defaults.oauthClient.dpopAlgorithm): boolean {
  const algs = server.dpop_signing_alg_values_supported
  return Array.isArray(algs) && algs.includes(alg)
}

/** A fresh key to store (extractable once, here, to be written to the 0600 token store). */
export async function generateDpopKey(alg: string = defaults.oauthClient.dpopAlgorithm): Promise<StoredDpopKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true })
  return { alg, privateJwk: await exportJWK(privateKey) }
}

/**
 * The client's DPoP key for one authorization server (RFC 9449): signs a fresh proof per request
 * (`jti`, `htm`, `htu` without query and fragment, `iat`, `ath` beside an access token) and keeps
 * the last nonce each server origin gave (`DPoP-Nonce`, on any answer). The key pair also goes to
 * openid-client for token requests (`keyPair`).
 */
export class DpopKey {
  readonly alg: string
  readonly keyPair: { privateKey: CryptoKey; publicKey: CryptoKey }
  readonly #publicJwk: JWK
  readonly #nonces = new Map<string, string>()

  private constructor(alg: string, keyPair: { privateKey: CryptoKey; publicKey: CryptoKey }, publicJwk: JWK) {
    this.alg = alg
    this.keyPair = keyPair
    this.#publicJwk = publicJwk
  }

  static async load(stored: StoredDpopKey): Promise<DpopKey> {
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, key_ops: _ops, ext: _ext, ...publicJwk } = stored.privateJwk
    const privateKey = (await importJWK({ ...stored.privateJwk, ext: false }, stored.alg)) as CryptoKey
    const publicKey = (await importJWK({ ...publicJwk, ext: true }, stored.alg)) as CryptoKey
    return new DpopKey(stored.alg, { privateKey, publicKey }, publicJwk)
  }

  /** A proof for one request; `accessToken` when it is presented beside (adds `ath`). */
  proof(method: string, url: string | URL, accessToken?: string): Promise<string> {
    const target = new URL(url)
    const nonce = this.#nonces.get(target.origin)
    return new SignJWT({
      jti: randomUUID(),
      htm: method.toUpperCase(),
      htu: `${target.origin}${target.pathname}`,
      iat: Math.floor(Date.now() / 1000),
      ...(nonce !== undefined ? { nonce } : {}),
      ...(accessToken !== undefined ? { ath: createHash('sha256').update(accessToken, 'ascii').digest('base64url') } : {}),
    })
      .setProtectedHeader({ alg: this.alg, typ: 'dpop+jwt', jwk: this.#publicJwk })
      .sign(this.keyPair.privateKey)
  }

  /** Keeps the nonce an answer from `url`'s origin carries, if any. */
  observe(url: string | URL, response: Response): void {
    const nonce = response.headers.get('dpop-nonce')
    if (nonce !== null && nonce !== '') this.#nonces.set(new URL(url).origin, nonce)
  }
}

/** Whether a resource answered `use_dpop_nonce` (RFC 9449 §9): 401 with a DPoP challenge naming that error. */
export function isDpopNonceChallenge(response: Response): boolean {
  if (response.status !== 401) return false
  return parseWwwAuthenticate(response.headers.get('www-authenticate') ?? '').some(
    (challenge) => challenge.scheme.toLowerCase() === 'dpop' && challenge.params['error'] === 'use_dpop_nonce',
  )
}

/**
 * Sends a request with a DPoP-bound access token: `Authorization: DPoP <token>` and a fresh proof
 * for this method and URL. A `use_dpop_nonce` answer is retried with the server's nonce
 * (`defaults.oauthClient.dpopNonceRetries` times), when the body can be sent again.
 */
export async function fetchWithDpop(fetchImpl: typeof fetch, input: Parameters<typeof fetch>[0], init: RequestInit | undefined, token: string, key: DpopKey): Promise<Response> {
  const url = input instanceof Request ? input.url : String(input)
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET')
  const replayable =
    init?.body === undefined ||
    init.body === null ||
    typeof init.body === 'string' ||
    init.body instanceof URLSearchParams ||
    init.body instanceof ArrayBuffer ||
    ArrayBuffer.isView(init.body)
  for (let attempt = 0; ; attempt++) {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
    headers.set('authorization', `DPoP ${token}`)
    headers.set('dpop', await key.proof(method, url, token))
    const response = await fetchImpl(input, { ...init, headers })
    key.observe(url, response)
    if (!isDpopNonceChallenge(response) || attempt >= defaults.oauthClient.dpopNonceRetries || !replayable) return response
    await response.body?.cancel()
  }
}
