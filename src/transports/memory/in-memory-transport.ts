import type { JsonRpcPayload } from '../../jsonrpc/index.js'
import type { MessageExtra, Transport } from '../../protocol/transport.js'

/**
 * A linked pair of in-memory transports for tests: what one sends, the other receives, through a
 * JSON round trip (so nothing that would not survive the wire slips through), asynchronously.
 *
 * @example
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
 */
export class InMemoryTransport implements Transport {
  #peer: InMemoryTransport | undefined
  #started = false
  #closed = false
  readonly #queue: Array<{ payload: unknown; extra: MessageExtra | undefined }> = []
  /** Credentials to attach to every message this side delivers (simulates an auth layer). */
  authInfo: MessageExtra['authInfo']

  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void
  sessionId?: string

  static createLinkedPair(): [InMemoryTransport, InMemoryTransport] {
    const a = new InMemoryTransport()
    const b = new InMemoryTransport()
    a.#peer = b
    b.#peer = a
    return [a, b]
  }

  async start(): Promise<void> {
    this.#started = true
    while (this.#queue.length > 0) {
      const item = this.#queue.shift()!
      this.onmessage?.(item.payload, item.extra)
    }
  }

  async send(payload: JsonRpcPayload): Promise<void> {
    const peer = this.#peer
    if (this.#closed || peer === undefined) throw new Error('in-memory transport is closed')
    const copy: unknown = JSON.parse(JSON.stringify(payload))
    const extra: MessageExtra | undefined = peer.authInfo ? { authInfo: peer.authInfo } : undefined
    queueMicrotask(() => peer.#deliver(copy, extra))
  }

  /** Deliver raw text as if it came off the wire (for malformed-input tests). */
  deliverRaw(payload: unknown): void {
    this.#deliver(payload, undefined)
  }

  #deliver(payload: unknown, extra: MessageExtra | undefined): void {
    if (this.#closed) return
    if (!this.#started) this.#queue.push({ payload, extra })
    else this.onmessage?.(payload, extra)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const peer = this.#peer
    this.#peer = undefined
    this.onclose?.()
    if (peer !== undefined) await peer.close()
  }
}
