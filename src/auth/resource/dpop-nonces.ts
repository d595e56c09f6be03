import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { defaults } from '../../config/defaults.js'

export interface DpopNoncesOptions {
  /**
   * Key of the nonces (at least 32 bytes). Processes behind one load balancer must share it, or a
   * nonce one gave is refused by the next; default: random, for one process.
   */
  secret?: Uint8Array | string
  /** A nonce is accepted for between half of this and all of it (ms). */
  lifetimeMs?: number
  now?: () => number
}

/**
 * Resource-server nonces for DPoP proofs (RFC 9449 §9), stateless: a nonce names a time window
 * and carries its HMAC, so any process holding the secret checks it without storage. The nonce of
 * the current window and of the one before are accepted; {@link current} is handed out in
 * `DPoP-Nonce` with a `use_dpop_nonce` challenge, and beside a successful answer whose proof
 * carried an older one.
 */
export class DpopNonces {
  readonly #secret: Uint8Array | string
  readonly #windowMs: number
  readonly #now: () => number

  constructor(options: DpopNoncesOptions = {}) {
    const secret = options.secret ?? randomBytes(32)
    if ((typeof secret === 'string' ? Buffer.byteLength(secret) : secret.byteLength) < 32) throw new TypeError('the DPoP nonce secret needs at least 32 bytes')
    this.#secret = secret
    this.#windowMs = Math.max(1_000, Math.floor((options.lifetimeMs ?? defaults.resourceServer.dpop.nonceLifetimeMs) / 2))
    this.#now = options.now ?? Date.now
  }

  /** The nonce to hand out now. */
  current(): string {
    return this.#nonce(this.#window())
  }

  /** Whether `nonce` is the current one (true), the previous one (`'stale'`: accept, hand out the current) or neither (false). */
  check(nonce: string | undefined): boolean | 'stale' {
    if (nonce === undefined) return false
    const window = this.#window()
    if (equal(nonce, this.#nonce(window))) return true
    return equal(nonce, this.#nonce(window - 1)) ? 'stale' : false
  }

  #window(): number {
    return Math.floor(this.#now() / this.#windowMs)
  }

  #nonce(window: number): string {
    const mac = createHmac('sha256', this.#secret).update(`dpop-nonce:${window}`).digest().subarray(0, 18)
    return `${window.toString(36)}.${mac.toString('base64url')}`
  }
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}
