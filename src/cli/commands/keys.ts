import { join } from 'node:path'
import { calculateJwkThumbprint } from 'jose'
import { loadServerSecrets, secretsDigest } from '../../auth/server/keys/server-secrets.js'
import { loadSigningKeys, publicJwk, rotateSigningKeys } from '../../auth/server/keys/signing-keys.js'
import { ensurePrivateDir } from '../../storage/private-file.js'
import { defaults } from '../../config/defaults.js'
import { loadConfigFile } from '../../config/load-config-file.js'
import { UsageError, type Command } from '../command.js'
import { redisChoice, redisOptions } from '../redis-option.js'
import { openCliAudit } from '../admin-server.js'

export const keysCommand: Command = {
  name: 'keys',
  summary: "list or rotate the authorization server's signing keys",
  usage: `
Usage: mcp-auth keys list [--data-dir DIR] [--config FILE] [--redis URL]
       mcp-auth keys rotate [--data-dir DIR] [--config FILE] [--redis URL]

'list' shows the signing keys of the data directory (kid, algorithm, RFC 7638 thumbprint) and
fingerprints of ${defaults.authServer.keys.jwksFile} and ${defaults.authServer.keys.secretsFile}, creating both files when missing (as a
server's first start would): compare the fingerprints across nodes, or copy the files from the
first node to the others. With Redis it also says whether they are the deployment's.

'rotate' generates new signing keys; they sign from the server's next start. The previous keys stay
published at jwks_uri for ${defaults.authServer.keys.retiredKeyLifetimeSeconds / 3600} hours so tokens they signed still verify.

With Redis (several nodes), run it in one node's data directory: it records the new keys for the
deployment; then every node needs the new jwks.json (copied, or on a shared volume) and a
restart, one node at a time. A node still holding the old file refuses to start.

Options:
  --data-dir DIR   data directory (default ${defaults.storage.dataDir})
  --config FILE    the server's JSON configuration (its dataDir, accessTokenAlg and redis)
  --redis URL      the deployment's Redis (default: MCP_AUTH_REDIS_URL, else the configuration's
                   storage.redis)
  --redis-prefix P its key prefix (default ${defaults.redis.prefix})
  -h, --help       show this help
`,
  options: { 'data-dir': { type: 'string' }, config: { type: 'string' }, ...redisOptions },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1 || (positionals[0] !== 'rotate' && positionals[0] !== 'list')) throw new UsageError("expected 'list' or 'rotate'")
    const fromFile = typeof values.config === 'string' ? await loadConfigFile(values.config) : {}
    const dataDir = (values['data-dir'] as string | undefined) ?? (fromFile['dataDir'] as string | undefined) ?? defaults.storage.dataDir
    const accessTokenAlg = fromFile['accessTokenAlg'] as string | undefined
    const keyOptions = accessTokenAlg !== undefined ? { accessTokenAlg } : {}
    const redisInput = redisChoice(values, fromFile) ?? fromFile['redis']
    if (positionals[0] === 'list') return listKeys(dataDir, keyOptions, redisInput)
    if (redisInput === undefined) {
      const kids = await rotateSigningKeys(dataDir, keyOptions)
      const audit = await openCliAudit({ dataDir })
      audit.record({ type: 'keys.rotated', result: 'success', details: { kids, shared: false } })
      await audit.close()
      process.stdout.write(`new signing keys: ${kids.join(', ')} (restart the server to sign with them)\n`)
      return 0
    }
    const settings = await redisSettings(redisInput)
    const { RedisConnection } = await import('../../redis/connection.js')
    const { createRedisStorage } = await import('../../redis/redis-storage.js')
    const { rotateClusterKeys } = await import('../../auth/server/keys/cluster-keys.js')
    const connection = await RedisConnection.connect(settings)
    try {
      const storage = createRedisStorage({ connection })
      try {
        const kids = await rotateClusterKeys(storage.records, dataDir, keyOptions)
        const audit = await openCliAudit({ dataDir, redis: settings }, connection)
        audit.record({ type: 'keys.rotated', result: 'success', details: { kids, shared: true } })
        await audit.close()
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

async function redisSettings(input: unknown): Promise<{ url: string; prefix?: string }> {
  const { authorizationServerOptionsSchema } = await import('../../auth/server/options.js')
  const parsed = authorizationServerOptionsSchema.shape.redis.safeParse(input)
  if (!parsed.success || parsed.data === undefined) throw new UsageError(`--redis must be a redis:// or rediss:// URL`)
  return typeof parsed.data === 'string' ? { url: parsed.data } : parsed.data
}

/** `keys list`: the data directory's keys (created when missing), and with Redis whether they are the deployment's. */
async function listKeys(dataDir: string, keyOptions: { accessTokenAlg?: string }, redisInput: unknown): Promise<number> {
  await ensurePrivateDir(dataDir)
  const secrets = secretsDigest(await loadServerSecrets(dataDir))
  const { keys, fingerprint } = await loadSigningKeys(dataDir, keyOptions)
  for (const key of keys) process.stdout.write(`${key.kid}\t${key.alg}\t${await calculateJwkThumbprint(publicJwk(key))}\n`)
  process.stdout.write(`${join(dataDir, defaults.authServer.keys.jwksFile)}: fingerprint ${fingerprint}\n`)
  process.stdout.write(`${join(dataDir, defaults.authServer.keys.secretsFile)}: fingerprint ${secrets}\n`)
  if (redisInput === undefined) return 0
  const { RedisConnection } = await import('../../redis/connection.js')
  const { createRedisStorage } = await import('../../redis/redis-storage.js')
  const connection = await RedisConnection.connect(await redisSettings(redisInput))
  try {
    const { recordedClusterKeys } = await import('../../auth/server/keys/cluster-keys.js')
    const recorded = await recordedClusterKeys(createRedisStorage({ connection }).records)
    if (recorded === undefined) {
      process.stdout.write('the deployment has recorded no keys yet: the first node to start records its own\n')
      return 0
    }
    const same = recorded.signingKeys === fingerprint && recorded.secrets === secrets
    process.stdout.write(same ? "these are the deployment's keys\n" : "these differ from the deployment's keys: copy both files from a running node\n")
    return same ? 0 : 1
  } finally {
    await connection.close()
  }
}
