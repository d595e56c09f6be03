import { createLocalJWKSet, errors as joseErrors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'
import { defaults } from '../../../config/defaults.js'
import type { OutboundFetch } from '../../../net/outbound-fetch.js'
import { addressRefused, IssuerUnavailableError } from './issuer-unavailable-error.js'

/**
 * A trusted issuer's JWKS fetched through the outbound fetch (address rules, time budget, body
 * cap, no redirects) and verified with jose's local key set. Cached like jose's remote key set:
 * used for `jwksMaxAgeMs`, fetched again on an unknown `kid` (key rotation) at most once per
 * `jwksCooldownMs`, which also spaces out attempts after a failure. Concurrent verifications
 * share one fetch. Keys older than `jwksMaxAgeMs` are not used once a refresh has failed.
 */
export class FetchedJwks {
  readonly #issuer: string
  readonly #uri: string
  readonly #fetch: OutboundFetch
  readonly #log: (line: string) => void
  #keys: JWTVerifyGetKey | undefined
  #fetchedAt = Number.NEGATIVE_INFINITY
  #triedAt = Number.NEGATIVE_INFINITY
  #failure = 'its keys have not been fetched yet'
  #pending: Promise<void> | undefined

  constructor(issuer: string, uri: string, fetchImpl: OutboundFetch, log: (line: string) => void) {
    this.#issuer = issuer
    this.#uri = uri
    this.#fetch = fetchImpl
    this.#log = log
  }

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (this.#keys === undefined || Date.now() - this.#fetchedAt > defaults.authServer.jwtBearer.jwksMaxAgeMs) await this.#refresh()
    try {
      return await this.#keys!(header, token)
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey) || this.#coolingDown()) throw error
      await this.#refresh()
      return this.#keys!(header, token)
    }
  }

  #coolingDown(): boolean {
    return Date.now() - this.#triedAt < defaults.authServer.jwtBearer.jwksCooldownMs
  }

  async #refresh(): Promise<void> {
    if (this.#pending === undefined && !this.#coolingDown()) {
      this.#triedAt = Date.now()
      this.#pending = this.#load().finally(() => {
        this.#pending = undefined
      })
    }
    if (this.#pending !== undefined) await this.#pending
    if (this.#keys === undefined) throw new IssuerUnavailableError(this.#issuer, this.#failure, { privateAddress: addressRefused(this.#failure) })
  }

  async #load(): Promise<void> {
    try {
      const response = await this.#fetch(this.#uri, { headers: { accept: 'application/json' } })
      if (!response.ok) {
        await response.body?.cancel()
        throw new Error(`${this.#uri} answered ${response.status}`)
      }
      const jwks = (await response.json()) as JSONWebKeySet
      if (typeof jwks !== 'object' || jwks === null || !Array.isArray(jwks.keys)) throw new Error(`${this.#uri} is not a JWK set`)
      this.#keys = createLocalJWKSet(jwks)
      this.#fetchedAt = Date.now()
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      this.#failure = `its keys could not be fetched (${reason})`
      if (Date.now() - this.#fetchedAt > defaults.authServer.jwtBearer.jwksMaxAgeMs) this.#keys = undefined
      const wait = Math.round(defaults.authServer.jwtBearer.jwksCooldownMs / 1000)
      this.#log(`mcp-auth: the keys of trusted issuer ${this.#issuer} could not be fetched from ${this.#uri} (${reason}); tried again in ${wait} s at the earliest`)
    }
  }
}
