/**
 * Messages between the processes of one deployment: a revoked grant every node must refuse, a
 * notification for a stream another node holds. A {@link RedisConnection} is one (Redis pub/sub);
 * {@link InProcessMessageBus} serves a single process and tests. Delivery is at most once and
 * only to processes listening at that moment, as with Redis pub/sub: durable state goes to the
 * store, the bus only says that something happened.
 */
export interface MessageBus {
  publish(channel: string, message: string): Promise<void>
  /** Listens until the returned function is called. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>
}

/** A {@link MessageBus} inside one process: every subscriber of the channel hears each message, asynchronously. */
export class InProcessMessageBus implements MessageBus {
  readonly #channels = new Map<string, Set<(message: string) => void>>()

  async publish(channel: string, message: string): Promise<void> {
    const listeners = this.#channels.get(channel)
    if (listeners === undefined) return
    for (const listener of [...listeners]) queueMicrotask(() => listener(message))
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    let listeners = this.#channels.get(channel)
    if (listeners === undefined) this.#channels.set(channel, (listeners = new Set()))
    const own = (message: string) => listener(message)
    listeners.add(own)
    return async () => {
      listeners.delete(own)
      if (listeners.size === 0) this.#channels.delete(channel)
    }
  }
}
