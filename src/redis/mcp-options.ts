import type { MessageBus } from '../sessions/message-bus.js'
import type { RedisConnection } from './connection.js'
import { RedisEventStore, type RedisEventStoreOptions } from './event-store.js'
import { RedisSessionStore } from './session-store.js'

export interface RedisMcpOptions extends RedisEventStoreOptions {
  /** Idle expiry (ms) of a session in Redis; give the handler the same `sessionIdleMs`. */
  sessionIdleMs?: number
}

/**
 * The connection's pub/sub as a {@link MessageBus} whose `publish` resolves to the number of
 * processes that heard it (Redis PUBLISH tells): a message for a GET stream nobody holds at the
 * moment is then stored by its sender, for the client's resumption, instead of being lost.
 */
class CountingRedisBus implements MessageBus {
  readonly #redis: RedisConnection

  constructor(connection: RedisConnection) {
    this.#redis = connection
  }

  // resolves to the count, though MessageBus declares void: ClusterLink.forward reads it when present
  publish(channel: string, message: string): Promise<void> {
    return this.#redis.run((client) => client.publish(this.#redis.key(channel), message)) as Promise<unknown> as Promise<void>
  }

  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    return this.#redis.subscribe(channel, listener)
  }
}

/**
 * What a Streamable HTTP handler needs to serve sessions together with other processes on one
 * Redis: the session store, the event store and the bus, to spread into its options. Give the
 * McpServer the same bus for server-wide notifications.
 *
 * @example
 * const redis = await RedisConnection.connect({ url: 'redis://10.0.0.5:6379' })
 * const shared = redisMcpOptions(redis)
 * const server = createDemoServer()
 * await server.shareNotifications(shared.bus)
 * const mcp = new StreamableHttpHandler(server, { allowedHosts: ['mcp.example.com'], ...shared })
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 */
export function redisMcpOptions(connection: RedisConnection, options: RedisMcpOptions = {}): { sessionStore: RedisSessionStore; eventStore: RedisEventStore; bus: MessageBus } {
  const { sessionIdleMs, ...events } = options
  return {
    sessionStore: new RedisSessionStore(connection, sessionIdleMs === undefined ? {} : { idleMs: sessionIdleMs }),
    eventStore: new RedisEventStore(connection, { ...(sessionIdleMs === undefined ? {} : { ttlMs: sessionIdleMs }), ...events }),
    bus: new CountingRedisBus(connection),
  }
}
