import { randomBytes } from 'node:crypto'
import type { JsonRpcParams } from '../jsonrpc/index.js'
import type { MessageBus } from '../sessions/message-bus.js'

/** The bus channel servers share their notifications on, unless `shareNotifications` is given another. */
export const SHARED_NOTIFICATIONS_CHANNEL = 'mcp:server-notifications'

interface Shared {
  /** This server: its own messages come back from the bus and are skipped. */
  o: string
  m: string
  p?: JsonRpcParams
}

/**
 * The link of one McpServer to the others of its deployment: what it raises is published, what
 * the others raise is delivered here. At most once, as the bus is (Redis pub/sub).
 */
export class SharedNotifications {
  readonly #bus: MessageBus
  readonly #channel: string
  readonly #origin = randomBytes(8).toString('hex')
  #unsubscribe: (() => Promise<void>) | undefined

  private constructor(bus: MessageBus, channel: string) {
    this.#bus = bus
    this.#channel = channel
  }

  /** Listens (resolves once the bus confirmed it) and hands each other server's notification to `deliver`. */
  static async connect(bus: MessageBus, channel: string, deliver: (method: string, params: JsonRpcParams | undefined) => void): Promise<SharedNotifications> {
    const shared = new SharedNotifications(bus, channel)
    shared.#unsubscribe = await bus.subscribe(channel, (text) => {
      let message: Shared
      try {
        message = JSON.parse(text) as Shared
      } catch {
        return
      }
      if (message.o === shared.#origin || typeof message.m !== 'string') return
      deliver(message.m, message.p)
    })
    return shared
  }

  publish(method: string, params: JsonRpcParams | undefined): Promise<void> {
    const message: Shared = params === undefined ? { o: this.#origin, m: method } : { o: this.#origin, m: method, p: params }
    return this.#bus.publish(this.#channel, JSON.stringify(message))
  }

  async close(): Promise<void> {
    const unsubscribe = this.#unsubscribe
    this.#unsubscribe = undefined
    await unsubscribe?.()
  }
}
