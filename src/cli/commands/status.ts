import { defaults } from '../../config/defaults.js'
import { deploymentStore } from '../admin-server.js'
import { byteSize } from '../byte-size.js'
import { recordCounts } from '../record-counts.js'
import type { Command } from '../command.js'
import { redactedRedisUrl } from '../redis-store-marker.js'
import { readStoreStatus, type StoreStatus } from '../read-store-status.js'

const column = 13

export const statusCommand: Command = {
  name: 'status',
  summary: "show the embedded store's record counts, file sizes and last compaction (from the running server, else from the files)",
  usage: `
Usage: mcp-auth status [--data-dir DIR] [--config FILE] [--json]

Shows what the embedded store of DIR holds (records per kind: oidc-provider's models and our
collections), the sizes of its snapshot and journal, the journal's generation and the last
compaction. When a server runs on DIR (mcp-auth start or auth-server, which leave
${defaults.cli.serverFile} there while they listen) the figures come from it; otherwise from the files,
read-only (safe beside anything). With Redis it says where the records are instead.

Options:
  --data-dir DIR   data directory (default ${defaults.storage.dataDir})
  --config FILE    the server's JSON configuration (its dataDir, its storage.redis)
  --redis URL      a deployment on Redis (also MCP_AUTH_REDIS_URL): says where its records are
  --redis-prefix P its key prefix
  --json           print one JSON object: the figures, "source" ("server" or "files") and
                   "server" ({ running, pid, url })
  -h, --help       show this help
`,
  options: { 'data-dir': { type: 'string' }, config: { type: 'string' }, redis: { type: 'string' }, 'redis-prefix': { type: 'string' }, json: { type: 'boolean' } },
  async run(values) {
    const { dataDir, redis, marker } = await deploymentStore(values)
    const inRedis = redis !== undefined ? { url: redactedRedisUrl(redis.url), prefix: redis.prefix ?? defaults.redis.prefix } : marker
    if (inRedis !== undefined) {
      const where = `the records are in Redis (${inRedis.url}, prefix ${inRedis.prefix}): 'mcp-auth status' covers the embedded store only`
      process.stdout.write(values.json === true ? `${JSON.stringify({ backend: 'redis', url: inRedis.url, prefix: inRedis.prefix })}\n` : `${where}\n`)
      return 0
    }
    const status = await readStoreStatus(dataDir)
    process.stdout.write(values.json === true ? `${JSON.stringify(status)}\n` : statusText(dataDir, status))
    return 0
  },
}

/** A few aligned lines. */
function statusText(dataDir: string, status: StoreStatus): string {
  const line = (label: string, text: string): string => `${`${label}:`.padEnd(column)}${text}\n`
  const { server } = status
  const serving =
    status.source === 'server'
      ? `running (pid ${server.pid}, ${server.url}${server.version === undefined ? '' : `, mcp-auth ${server.version}`}${server.uptimeSeconds === undefined ? '' : `, up ${server.uptimeSeconds} s`})`
      : server.running
        ? `pid ${server.pid} runs but did not answer; read from the files`
        : 'not running; read from the files'
  const last = status.lastCompaction
  const compaction = status.compacting === true ? 'compacting now' : last === undefined ? 'none yet' : compactionText(last)
  return [
    line('server', serving),
    status.note === undefined ? '' : line('note', status.note),
    line('store', `${dataDir} (embedded, format ${status.format}${status.generation === undefined ? '' : `, journal generation ${status.generation}`})`),
    line('records', recordCounts(status.models)),
    line('collections', recordCounts(status.collections)),
    line('snapshot', byteSize(status.snapshotBytes)),
    line('journal', byteSize(status.journalBytes)),
    line('compaction', status.format === 1 ? 'none (format 1: the next start migrates it)' : compaction),
    status.tornTail === undefined
      ? ''
      : line('torn tail', `${byteSize(status.tornTail.bytes)} at ${status.tornTail.file}:${status.tornTail.line}, an unfinished last batch the next start drops`),
  ].join('')
}

function compactionText(last: NonNullable<StoreStatus['lastCompaction']>): string {
  const at = new Date(last.at)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')
  const took = last.durationMs === undefined ? '' : `, took ${last.durationMs} ms`
  const held = last.records === undefined ? '' : `, ${last.records} records`
  return `${at}${took}${held}`
}
