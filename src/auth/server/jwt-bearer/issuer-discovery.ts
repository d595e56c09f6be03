import { defaults } from '../../../config/defaults.js'
import type { OutboundFetch } from '../../../net/outbound-fetch.js'
import { discoverAuthorizationServer } from '../../resource/discover-authorization-server.js'
import { addressRefused, IssuerUnavailableError } from './issuer-unavailable-error.js'

/**
 * The `jwks_uri` of a trusted issuer known by its metadata only (RFC 8414, then OpenID Connect
 * discovery), discovered once at start. A failure never reaches the process: it is logged in one
 * line and tried again in the background, from `discoveryRetryMinMs` doubling up to
 * `discoveryRetryMaxMs`; meanwhile `jwksUri()` throws IssuerUnavailableError at once (only the
 * first attempt is waited for, so an assertion arriving just after start is not refused for it).
 */
export class IssuerDiscovery {
  readonly #issuer: string
  readonly #fetch: OutboundFetch
  readonly #log: (line: string) => void
  readonly #first: Promise<void>
  #jwksUri: string | undefined
  #failure: string | undefined
  #delayMs: number = defaults.authServer.jwtBearer.discoveryRetryMinMs
  #timer: NodeJS.Timeout | undefined
  #closed = false

  constructor(issuer: string, fetchImpl: OutboundFetch, log: (line: string) => void) {
    this.#issuer = issuer
    this.#fetch = fetchImpl
    this.#log = log
    this.#first = this.#attempt()
  }

  async jwksUri(): Promise<string> {
    if (this.#jwksUri === undefined && this.#failure === undefined) await this.#first
    if (this.#jwksUri !== undefined) return this.#jwksUri
    throw new IssuerUnavailableError(this.#issuer, `its discovery failed (${this.#failure}); tried again in the background`, {
      privateAddress: addressRefused(this.#failure!),
    })
  }

  /** Stops the background retries. */
  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
  }

  /** One discovery attempt, bounded by one outbound budget; never rejects. */
  async #attempt(): Promise<void> {
    try {
      const metadata = await discoverAuthorizationServer(this.#issuer, this.#fetch, { signal: AbortSignal.timeout(defaults.outbound.timeoutMs) })
      if (typeof metadata.jwks_uri !== 'string' || !URL.canParse(metadata.jwks_uri)) throw new Error('its metadata names no jwks_uri')
      this.#jwksUri = metadata.jwks_uri
      if (this.#failure !== undefined) this.#log(`mcp-auth: trusted issuer ${this.#issuer} is available again; its assertions are accepted`)
      this.#failure = undefined
    } catch (error) {
      this.#failure = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ')
      if (this.#closed) return
      const seconds = Math.round(this.#delayMs / 100) / 10
      this.#log(`mcp-auth: trusted issuer ${this.#issuer} is unavailable (${this.#failure}); its assertions are refused until it answers; next try in ${seconds} s`)
      this.#timer = setTimeout(() => void this.#attempt(), this.#delayMs)
      this.#timer.unref()
      this.#delayMs = Math.min(this.#delayMs * 2, defaults.authServer.jwtBearer.discoveryRetryMaxMs)
    }
  }
}
