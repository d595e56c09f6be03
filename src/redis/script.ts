import { createHash } from 'node:crypto'
import type { RedisConnection } from './connection.js'

/**
 * A Lua script run by its SHA-1 (EVALSHA), sent whole only when Redis does not know it yet (after
 * a restart, or the first time): one round trip per call, and the whole script runs atomically.
 */
export class RedisScript {
  readonly #source: string
  readonly #sha: string

  constructor(source: string) {
    this.#source = source
    this.#sha = createHash('sha1').update(source).digest('hex')
  }

  /** Runs with `keys` (built with `connection.key`) and `args`; Redis failures become StorageUnavailableError. */
  run(connection: RedisConnection, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    return connection.run(async (client) => {
      try {
        return await client.evalsha(this.#sha, keys.length, ...keys, ...args)
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error
        return client.eval(this.#source, keys.length, ...keys, ...args)
      }
    })
  }
}
