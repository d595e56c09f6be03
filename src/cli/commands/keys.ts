import { join } from 'node:path'
import { rotateSigningKeys } from '../../auth/server/signing-keys.js'
import { defaults } from '../../config/defaults.js'
import { loadConfigFile } from '../../config/load-config-file.js'
import { UsageError, type Command } from '../command.js'

export const keysCommand: Command = {
  name: 'keys',
  summary: "rotate the authorization server's signing keys",
  usage: `
Usage: mcp-auth keys rotate [--data-dir DIR] [--config FILE] [--redis URL]

Generates new signing keys; they sign from the server's next start. The previous keys stay
published at jwks_uri for ${defaults.authServer.keys.retiredKeyLifetimeSeconds / 3600} hours so tokens they signed still verify.

With Redis (several nodes), run it in one node's data directory: it records the new keys for the
deployment; then every node needs the new jwks.json (copied, or on a shared volume) and a
restart, one node at a time. A node still holding the old file refuses to start.

Options:
  --data-dir DIR   data directory (default ${defaults.storage.dataDir})
  --config FILE    the server's JSON configuration (its dataDir, accessTokenAlg and redis)
  --redis URL      the deployment's Redis (default: MCP_AUTH_REDIS_URL, else the configuration's)
  -h, --help       show this help
`,
  options: { 'data-dir': { type: 'string' }, config: { type: 'string' }, redis: { type: 'string' } },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1 || positionals[0] !== 'rotate') throw new UsageError("expected 'rotate'")
    const fromFile = typeof values.config === 'string' ? await loadConfigFile(values.config) : {}
    const dataDir = (values['data-dir'] as string | undefined) ?? (fromFile['dataDir'] as string | undefined) ?? defaults.storage.dataDir
    const accessTokenAlg = fromFile['accessTokenAlg'] as string | undefined
    const keyOptions = accessTokenAlg !== undefined ? { accessTokenAlg } : {}
    const redisInput = (values.redis as string | undefined) ?? (process.env['MCP_AUTH_REDIS_URL'] || undefined) ?? fromFile['redis']
    if (redisInput === undefined) {
      const kids = await rotateSigningKeys(dataDir, keyOptions)
      process.stdout.write(`new signing keys: ${kids.join(', ')} (restart the server to sign with them)\n`)
      return 0
    }
    const { authorizationServerOptionsSchema } = await import('../../auth/server/options.js')
    const parsed = authorizationServerOptionsSchema.shape.redis.safeParse(redisInput)
    if (!parsed.success || parsed.data === undefined) throw new UsageError(`--redis must be a redis:// or rediss:// URL`)
    const settings = typeof parsed.data === 'string' ? { url: parsed.data } : parsed.data
    const { RedisConnection } = await import('../../storage/redis/connection.js')
    const { createRedisStorage } = await import('../../storage/redis/redis-storage.js')
    const { rotateClusterKeys } = await import('../../auth/server/cluster-keys.js')
    const connection = await RedisConnection.connect(settings)
    try {
      const storage = createRedisStorage({ connection })
      try {
        const kids = await rotateClusterKeys(storage.records, dataDir, keyOptions)
        process.stdout.write(
          `new signing keys: ${kids.join(', ')}, recorded for the deployment.\n` +
            `Every node must now get the new ${join(dataDir, defaults.authServer.keys.jwksFile)} and be restarted, one at a time (rolling); ` +
            `a node with the old file refuses to start.\n`,
        )
      } finally {
        await storage.close()
      }
    } finally {
      await connection.close()
    }
    return 0
  },
}
