import { defaults } from '../../config/defaults.js'
import { HttpError } from '../../net/http-error.js'
import { LOOPBACK_HOSTS } from '../../config/loopback-hosts.js'

/**
 * Which Host and Origin headers an MCP HTTP endpoint accepts: the DNS-rebinding defence the
 * transport spec requires. Hosts are `name` or `name:port`; a name alone allows any port.
 * Origins are full origins (`https://app.example`) or `*`. With no Origin allow-list, an Origin
 * is accepted when its host is an allowed host; a request without Origin (not a browser) passes.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning
 */
export interface OriginPolicyOptions {
  allowedHosts: readonly string[]
  allowedOrigins?: readonly string[] | undefined
}

export { LOOPBACK_HOSTS }

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host)
}

export class OriginPolicy {
  readonly #hosts: ReadonlySet<string>
  readonly #origins: ReadonlySet<string> | undefined
  readonly #verdicts = new Map<string, boolean>()

  constructor(options: OriginPolicyOptions) {
    this.#hosts = new Set(options.allowedHosts.map((h) => h.toLowerCase()))
    this.#origins = options.allowedOrigins === undefined ? undefined : new Set(options.allowedOrigins.map((o) => o.toLowerCase().replace(/\/$/, '')))
  }

  /** Throws HttpError 403 for a Host or Origin outside the policy. */
  check(host: string | undefined, origin: string | undefined): void {
    if (host === undefined || !this.#hostAllowed(host.toLowerCase())) throw new HttpError(403, `Forbidden: Host ${JSON.stringify(host ?? '')} is not allowed`)
    if (origin === undefined) return
    if (!this.#originAllowed(origin.toLowerCase())) throw new HttpError(403, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed`)
  }

  #hostAllowed(hostWithPort: string): boolean {
    if (this.#hosts.has(hostWithPort)) return true
    const known = this.#verdicts.get(hostWithPort)
    if (known !== undefined) return known
    const verdict = this.#hostNameAllowed(hostWithPort)
    // the same few Host values arrive again and again: remember the verdicts (bounded)
    if (this.#verdicts.size >= defaults.httpChecks.rememberedVerdicts) this.#verdicts.clear()
    this.#verdicts.set(hostWithPort, verdict)
    return verdict
  }

  #hostNameAllowed(hostWithPort: string): boolean {
    const name = hostWithPort.startsWith('[') ? hostWithPort.slice(0, hostWithPort.indexOf(']') + 1) : hostWithPort.split(':')[0]!
    return this.#hosts.has(name)
  }

  #originAllowed(origin: string): boolean {
    if (this.#origins !== undefined) return this.#origins.has('*') || this.#origins.has(origin)
    let url: URL
    try {
      url = new URL(origin)
    } catch {
      return false
    }
    return (url.protocol === 'http:' || url.protocol === 'https:') && this.#hostAllowed(url.host)
  }
}
