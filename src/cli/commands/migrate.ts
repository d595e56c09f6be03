import { join } from 'node:path'
import { defaults } from '../../config/defaults.js'
import { createLowdbStorage } from '../../storage/lowdb-storage.js'
import { migrateStorage } from '../../storage/migrate.js'
import { RedisConnection } from '../../redis/connection.js'
import { createRedisStorage } from '../../redis/redis-storage.js'
import { UsageError, type Command } from '../command.js'
import { redisChoice } from '../redis-option.js'

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'move an embedded store (a data directory) into Redis, for several processes behind a load balancer',
  usage: `
Usage: mcp-auth migrate --from DIR --to redis://HOST:PORT [--redis-prefix P] [--force]

Copies everything the authorization server keeps in DIR's store (clients, accounts, consents,
resources, grants, sessions, refresh tokens and the rest, each with the lifetime it has left) into
Redis under the prefix (default ${defaults.redis.prefix}). Stop the server on DIR first: the store
refuses a second process. Refuses a prefix that already holds keys unless --force (then records
with the same ids are replaced).

Signing keys and secrets stay files: give DIR's secrets.json and jwks.json to every node
(docs/deployment.md), then start the nodes with --redis.

Options:
  --from DIR         the data directory to read (its ${defaults.storage.dbFile})
  --to URL           the Redis to write (redis:// or rediss://)
  --redis-prefix P   key prefix in Redis (default ${defaults.redis.prefix})
  --force            write even when the prefix already holds keys
  -h, --help         show this help
`,
  options: { from: { type: 'string' }, to: { type: 'string' }, 'redis-prefix': { type: 'string' }, force: { type: 'boolean' } },
  async run(values) {
    if (typeof values.from !== 'string') throw new UsageError('--from DIR is required')
    if (typeof values.to !== 'string') throw new UsageError('--to redis://… is required')
    const choice = redisChoice({ redis: values.to, 'redis-prefix': values['redis-prefix'] }, {})!
    const from = await createLowdbStorage({ file: join(values.from, defaults.storage.dbFile) })
    try {
      const redis = await RedisConnection.connect(choice)
      try {
        if (values.force !== true && (await holdsKeys(redis))) {
          process.stderr.write(`mcp-auth migrate: ${choice.url} already holds keys under ${redis.prefix}: choose another --redis-prefix, or --force to write over them\n`)
          return 1
        }
        const counts = await migrateStorage(from, createRedisStorage({ connection: redis }))
        const line = (what: Record<string, number>): string =>
          Object.entries(what)
            .map(([name, count]) => `${name} ${count}`)
            .join(', ') || 'none'
        process.stdout.write(
          `migrated ${values.from} to ${redis.prefix} on Redis\n  oidc-provider records: ${line(counts.models)}\n  our records: ${line(counts.collections)}\n` +
            `Next: give every node ${join(values.from, 'secrets.json')} and ${join(values.from, 'jwks.json')} (docs/deployment.md), then start them with --redis.\n`,
        )
        return 0
      } finally {
        await redis.close()
      }
    } finally {
      await from.close()
    }
  },
}

/** Whether any key lives under the connection's prefix. */
async function holdsKeys(redis: RedisConnection): Promise<boolean> {
  for await (const _key of redis.keysStartingWith(redis.prefix)) return true
  return false
}
