import type { Redis } from 'ioredis'
import { defaults } from '../config/defaults.js'
import { StorageUnavailableError } from '../storage/errors.js'

/** Options of {@link RedisConnection.connect}. */
export interface RedisConnectionOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://` for TLS. */
  url: string
  /** Prefix of every key and channel (default `mcp-auth:`). */
  prefix?: string
  connectTimeoutMs?: number
  commandTimeoutMs?: number
}

type Listener = (message: string) => void

/**
 * One process's way to Redis: a command connection and, once something subscribes, a second one
 * for pub/sub (Redis puts a subscribing connection in a mode where it runs nothing else). Both
 * reconnect forever with a capped back-off; while Redis is away commands fail at once with
 * {@link StorageUnavailableError} (no offline queue), so callers answer 503 instead of hanging,
 * and service resumes without a restart when Redis returns. Subscriptions are renewed after a
 * reconnection by the client library.
 *
 * Keys are not prefixed behind the caller's back: build each with {@link key}, so Lua scripts
 * and multi-key commands see exactly the names that are stored.
 *
 * @example
 * const redis = await RedisConnection.connect({ url: 'redis://127.0.0.1:6379' })
 * await redis.run((client) => client.set(redis.key('hello'), 'world'))
 * const stop = await redis.subscribe('events', (message) => console.log(message))
 * await redis.publish('events', 'hi')
 */
export class RedisConnection {
  readonly client: Redis
  readonly prefix: string
  readonly #options: Required<Omit<RedisConnectionOptions, 'prefix'>>
  #subscriber: Redis | undefined
  readonly #listeners = new Map<string, Set<Listener>>()
  #closed = false

  private constructor(client: Redis, options: RedisConnectionOptions) {
    this.client = client
    this.prefix = options.prefix ?? defaults.redis.prefix
    this.#options = {
      url: options.url,
      connectTimeoutMs: options.connectTimeoutMs ?? defaults.redis.connectTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs ?? defaults.redis.commandTimeoutMs,
    }
  }

  /** Connects and waits until Redis answers; rejects with a clear message when it does not in time. */
  static async connect(options: RedisConnectionOptions): Promise<RedisConnection> {
    const url = new URL(options.url)
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new TypeError(`not a Redis URL (redis:// or rediss://): ${redacted(url)}`)
    // the client library is loaded by the first connection: a process without Redis never loads it
    const { Redis: RedisClient } = await import('ioredis')
    const connection = new RedisConnection(createClient(RedisClient, options), options)
    const timeoutMs = connection.#options.connectTimeoutMs
    try {
      await untilReady(connection.client, timeoutMs)
    } catch (error) {
      await connection.close()
      throw new StorageUnavailableError(`cannot reach Redis at ${redacted(url)}: ${(error as Error).message}`, { cause: error })
    }
    return connection
  }

  /** True while connected (no round trip): a caller may skip a cached shortcut when Redis is away. */
  get connected(): boolean {
    return this.client.status === 'ready'
  }

  /** `prefix` + the parts joined by `:`. */
  key(...parts: string[]): string {
    return `${this.prefix}${parts.join(':')}`
  }

  /** Runs commands; any failure of Redis itself (down, timed out) becomes {@link StorageUnavailableError}. */
  async run<T>(commands: (client: Redis) => Promise<T>): Promise<T> {
    try {
      return await commands(this.client)
    } catch (error) {
      throw unavailable(error)
    }
  }

  /**
   * Every key that starts with `start` (a full key, prefix included), by SCAN: for administration
   * and migration, never a request's path. A key may come twice (SCAN's rule): callers that count
   * keep a Set.
   */
  async *keysStartingWith(start: string): AsyncIterable<string> {
    const pattern = `${start.replace(/[*?[\]\\]/g, '\\$&')}*`
    let cursor = '0'
    do {
      const [next, found] = await this.run((client) => client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000))
      yield* found
      cursor = next
    } while (cursor !== '0')
  }

  /** True when Redis answers a PING now (for health checks); never throws. */
  async ping(): Promise<boolean> {
    try {
      return (await this.client.ping()) === 'PONG'
    } catch {
      return false
    }
  }

  /** Publishes on the prefixed channel. */
  async publish(channel: string, message: string): Promise<void> {
    await this.run((client) => client.publish(this.key(channel), message))
  }

  /** Listens on the prefixed channel until the returned function is called. */
  async subscribe(channel: string, listener: Listener): Promise<() => Promise<void>> {
    const name = this.key(channel)
    const subscriber = this.#subscriberConnection()
    let listeners = this.#listeners.get(name)
    if (listeners === undefined) {
      this.#listeners.set(name, (listeners = new Set()))
      try {
        await subscriber.subscribe(name)
      } catch (error) {
        this.#listeners.delete(name)
        throw unavailable(error)
      }
    }
    listeners.add(listener)
    return async () => {
      const current = this.#listeners.get(name)
      if (current === undefined || !current.delete(listener) || current.size > 0) return
      this.#listeners.delete(name)
      if (!this.#closed) await subscriber.unsubscribe(name).catch(() => undefined)
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#listeners.clear()
    await Promise.all([this.client, this.#subscriber].map((client) => (client === undefined ? undefined : client.quit().catch(() => client.disconnect()))))
  }

  #subscriberConnection(): Redis {
    if (this.#subscriber === undefined) {
      // A subscriber waits for messages, possibly for hours: no command timeout on it.
      this.#subscriber = this.client.duplicate({ commandTimeout: undefined as unknown as number, enableOfflineQueue: true })
      this.#subscriber.on('error', () => undefined)
      this.#subscriber.on('message', (channel: string, message: string) => {
        for (const listener of this.#listeners.get(channel) ?? []) {
          try {
            listener(message)
          } catch {
            // one listener's failure must not stop the others
          }
        }
      })
    }
    return this.#subscriber
  }
}

function createClient(RedisClient: typeof Redis, options: RedisConnectionOptions): Redis {
  const r = defaults.redis
  const client = new RedisClient(options.url, {
    connectTimeout: options.connectTimeoutMs ?? r.connectTimeoutMs,
    commandTimeout: options.commandTimeoutMs ?? r.commandTimeoutMs,
    // fail fast while disconnected: a request answers 503 at once instead of queueing
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, r.reconnectMaxDelayMs),
    lazyConnect: false,
    // commands issued in one tick (many requests in flight) go out in one write
    enableAutoPipelining: true,
  })
  // Connection errors are reported through the failing commands; an unhandled 'error' event would end the process.
  client.on('error', () => undefined)
  return client
}

/** Resolves once the client is connected (without an offline queue, a command sent earlier would fail). */
function untilReady(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve()
  return new Promise((resolve, reject) => {
    let lastError: Error | undefined
    const onError = (error: Error) => {
      lastError = error
    }
    const timer = setTimeout(() => {
      client.off('ready', onReady)
      client.off('error', onError)
      reject(new Error(`no answer within ${timeoutMs} ms${lastError === undefined ? '' : ` (${lastError.message})`}`))
    }, timeoutMs)
    const onReady = () => {
      clearTimeout(timer)
      client.off('error', onError)
      resolve()
    }
    client.once('ready', onReady)
    client.on('error', onError)
  })
}

function unavailable(error: unknown): Error {
  if (error instanceof StorageUnavailableError) return error
  // Redis's own answers (a script's error, WRONGTYPE) are bugs, not an outage: pass them on as they are.
  if (error instanceof Error && error.name === 'ReplyError') return error
  return new StorageUnavailableError(`Redis unavailable: ${(error as Error).message ?? String(error)}`, { cause: error })
}

/** The URL without its password, for messages. */
function redacted(url: URL): string {
  const copy = new URL(url.href)
  if (copy.password !== '') copy.password = '***'
  return copy.href
}
