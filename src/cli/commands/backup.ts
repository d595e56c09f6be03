import { join, resolve } from 'node:path'
import { defaults } from '../../config/defaults.js'
import { backupEmbeddedStore } from '../../storage/embedded/backup-store.js'
import { readStoreMarker } from '../../storage/embedded/store-marker.js'
import { deploymentStore } from '../admin-server.js'
import { byteSize } from '../byte-size.js'
import { UsageError, type Command } from '../command.js'
import { redactedRedisUrl } from '../redis-store-marker.js'
import { shellWord } from '../shell-word.js'

export const backupCommand: Command = {
  name: 'backup',
  summary: 'write a consistent copy of the embedded store and its key files into a new directory, also while the server runs',
  usage: `
Usage: mcp-auth backup --out DIR [--data-dir DATA] [--config FILE]

Copies the embedded store of DATA (its snapshot and journals, as far as the last write
acknowledged before the copy began) and the key files beside it (secrets.json, jwks.json) into
DIR, a new directory (created 0700, files 0600) that is itself a data directory. A server may keep
running on DATA meanwhile. 'mcp-auth restore --from DIR --data-dir NEW' puts it back.

Options:
  --out DIR        where the copy goes (must not exist, or be empty)
  --data-dir DATA  data directory (default ${defaults.storage.dataDir})
  --config FILE    the server's JSON configuration (its dataDir, its storage.redis)
  --redis URL      a deployment on Redis (also MCP_AUTH_REDIS_URL, --redis-prefix P): refused,
                   with what to use instead (Redis's own persistence)
  -h, --help       show this help
`,
  options: { out: { type: 'string' }, 'data-dir': { type: 'string' }, config: { type: 'string' }, redis: { type: 'string' }, 'redis-prefix': { type: 'string' } },
  async run(values) {
    if (typeof values.out !== 'string' || values.out === '') throw new UsageError('--out DIR is required')
    const { dataDir, redis, marker } = await deploymentStore(values)
    const inRedis = redis !== undefined ? redactedRedisUrl(redis.url) : marker?.url
    if (inRedis !== undefined)
      throw new Error(
        `the records are in Redis (${inRedis}), not in ${dataDir}: back them up with Redis's own persistence (BGSAVE for an RDB snapshot, or AOF), and keep each node's secrets.json and jwks.json`,
      )
    const marked = join(dataDir, defaults.storage.dbFile)
    const { version } = await readStoreMarker(marked)
    if (version === 'none') throw new Error(`${dataDir} holds no embedded store (no ${defaults.storage.dbFile})`)
    if (version !== 2) throw new Error(`${marked} is of format ${version}: start a server on ${dataDir} once (it migrates the store), then back it up`)
    const out = resolve(values.out)
    const written = await backupEmbeddedStore(marked, out)
    process.stdout.write(
      [
        `backed up ${dataDir} into ${out}: ${written.files.length} files, ${byteSize(written.bytes)} of store`,
        ...written.files.map((file) => `  ${file}`),
        'To restore it, into a new directory (or into a data directory whose server is stopped and whose',
        `${defaults.storage.dbFile}, ${defaults.storage.snapshotFile} and ${defaults.storage.journalFile}.* are moved away):`,
        `  mcp-auth restore --from ${shellWord(out)} --data-dir ${shellWord(resolve(dataDir))}`,
        '',
      ].join('\n'),
    )
    return 0
  },
}
