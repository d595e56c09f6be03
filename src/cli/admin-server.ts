import { access } from 'node:fs/promises'
import { userInfo } from 'node:os'
import { actingAs, AdminAudit, type AdminOrigin } from '../auth/server/admin/admin-audit.js'
import { createLog, logLevelFromEnv } from '../observe/log.js'
import { Observer } from '../observe/observer.js'
import { join } from 'node:path'
import type { AuthorizationServer } from '../auth/server/create-authorization-server.js'
import type { AuthorizationServerOptions } from '../auth/server/options.js'
import { defaults } from '../config/defaults.js'
import { loadConfigFile } from '../config/load-config-file.js'
import type { RedisConnection } from '../redis/connection.js'
import type { MessageBus } from '../sessions/message-bus.js'
import { StorageLockedError } from '../storage/file-lock.js'
import type { RecordStore } from '../storage/types.js'
import { redisChoice, redisOptions, type RedisChoice } from './redis-option.js'
import { readRedisStoreMarker, type RedisStoreMarker } from './redis-store-marker.js'

/** Options of the commands that administer a deployment's store (a data directory, or Redis). */
export const ADMIN_OPTIONS = {
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  ...redisOptions,
} as const

/** Their lines of a usage text, descriptions starting at `column` as the command's other options do. */
export function adminUsage(column: number): string {
  const line = (name: string, text: string[]): string => [`  ${name.padEnd(column - 2)}${text[0]}`, ...text.slice(1).map((more) => `${' '.repeat(column)}${more}`)].join('\n')
  return `${[
    line('--data-dir DIR', [`data directory (default ${defaults.storage.dataDir}); with Redis, a node's (its key files)`]),
    line('--config FILE', ["the server's JSON configuration (its upstream, so revocations reach it; its storage.redis)"]),
    line('--redis URL', ["the deployment's Redis, acted on while its nodes run (default: MCP_AUTH_REDIS_URL,", "else the configuration's storage.redis); see docs/deployment.md"]),
    line('--redis-prefix P', [`its key prefix (default ${defaults.redis.prefix})`]),
  ].join('\n')}\n`
}

/** Where an administration command acts: a data directory's embedded store, or the deployment's Redis. */
export interface AdminTarget {
  dataDir: string
  redis?: RedisChoice
  /** The configuration file's authorization server options (without `storage`). */
  config: AuthorizationServerOptions
}

/**
 * Where the servers read: --redis, MCP_AUTH_REDIS_URL or the configuration's `storage.redis`,
 * else the data directory. A data directory that a node on Redis marked as its own is refused
 * without Redis: a write there would land in a file no node reads.
 */
export async function adminTarget(values: Record<string, string | boolean | undefined>): Promise<AdminTarget> {
  const { dataDir, redis, marker, config } = await deploymentStore(values)
  if (redis !== undefined) return { dataDir, redis, config }
  if (marker !== undefined) {
    throw new Error(
      `${dataDir} belongs to a node whose store is in Redis (${marker.url}, prefix ${marker.prefix}): the servers read accounts, clients, grants and resources there, not in this directory. ` +
        `Add --redis URL${marker.prefix === defaults.redis.prefix ? '' : ` --redis-prefix ${marker.prefix}`} (or set MCP_AUTH_REDIS_URL).`,
    )
  }
  return { dataDir, config }
}

/**
 * Where the servers read, as {@link adminTarget} finds it, without refusing: also the Redis marker
 * a node left in the data directory when neither --redis nor the configuration names Redis.
 */
export async function deploymentStore(values: Record<string, string | boolean | undefined>): Promise<AdminTarget & { marker?: RedisStoreMarker }> {
  const file = typeof values.config === 'string' ? await loadConfigFile(values.config) : {}
  const chosen = redisChoice(values, file)
  const { redis: configRedis, ...config } = file as AuthorizationServerOptions
  // a configuration may also name Redis as the authorization server's own `redis` option
  const redis = chosen ?? (typeof configRedis === 'string' ? { url: configRedis } : (configRedis as RedisChoice | undefined))
  const dataDir = (values['data-dir'] as string | undefined) ?? config.dataDir ?? defaults.storage.dataDir
  if (redis !== undefined) return { dataDir, redis, config }
  const marker = await readRedisStoreMarker(dataDir)
  return marker === undefined ? { dataDir, config } : { dataDir, config, marker }
}

/** A deployment's record store opened for one command, and the bus its nodes listen on (Redis only). */
export interface AdminRecords {
  records: RecordStore
  bus?: MessageBus
  /** Records what the command did in the audit trail, as the operating-system user's. */
  audit: Pick<AdminAudit, 'record'>
  close(): Promise<void>
}

/**
 * The operator at this shell as the audit trail names them: the operating-system user, and the
 * way the command acted (the data directory's file, or the deployment's Redis).
 */
export function cliOrigin(target: Pick<AdminTarget, 'redis'>): AdminOrigin {
  return { actor: { osUser: osUser(), channel: target.redis !== undefined ? 'cli-redis' : 'cli-local' } }
}

/** The login name, or the uid when the system has no name for it (a container's user without a passwd entry). */
function osUser(): string {
  try {
    return userInfo().username
  } catch {
    return process.env['USER'] ?? `uid ${process.getuid?.() ?? 'unknown'}`
  }
}

/**
 * The command's observer: its audit events kept where the servers keep theirs; its log on stderr,
 * quiet (`warn`) unless MCP_AUTH_LOG_LEVEL asks for more (stdout carries the command's answer).
 */
export function cliObserver(): Observer {
  return new Observer({ log: createLog({ level: logLevelFromEnv() ?? 'warn', format: 'json' }) })
}

/** Opens the record store the servers read (see {@link adminTarget}); embedded storage admits one process. */
export async function openAdminRecords(target: AdminTarget): Promise<AdminRecords> {
  const opened = await openRecords(target)
  const audit = await openCliAudit(target, opened.connection).catch(async (error: unknown) => {
    await opened.close()
    throw error
  })
  return {
    records: opened.records,
    ...(opened.connection !== undefined ? { bus: opened.connection } : {}),
    audit,
    async close() {
      // the command's events stored before the store goes
      await audit.close()
      await opened.close()
    },
  }
}

/**
 * The audit of a command that acts on the store without a server: its events as the operator's at
 * this shell, kept where the servers keep theirs (the data directory's audit file, or the
 * deployment's stream on `connection`, else one opened for it). `close()` waits until they are stored.
 */
export async function openCliAudit(target: Pick<AdminTarget, 'dataDir' | 'redis'>, connection?: RedisConnection): Promise<Pick<AdminAudit, 'record'> & { close(): Promise<void> }> {
  const observer = cliObserver()
  let own: RedisConnection | undefined
  if (target.redis === undefined) {
    const { FileAuditTrail } = await import('../observe/file-audit-trail.js')
    observer.attachTrail(new FileAuditTrail({ dataDir: target.dataDir, log: observer.log }))
  } else {
    const { RedisConnection } = await import('../redis/connection.js')
    const { RedisAuditTrail } = await import('../redis/redis-audit-trail.js')
    own = connection === undefined ? await RedisConnection.connect(target.redis) : undefined
    observer.attachTrail(new RedisAuditTrail((connection ?? own)!, { log: observer.log }))
  }
  const audit = new AdminAudit(observer)
  const origin = cliOrigin(target)
  return {
    record: (event) => actingAs(origin, () => audit.record(event)),
    async close() {
      await observer.trail?.flushed()
      await observer.trail?.close()
      await own?.close()
    },
  }
}

async function openRecords(target: AdminTarget): Promise<{ records: RecordStore; connection?: RedisConnection; close(): Promise<void> }> {
  if (target.redis === undefined) {
    const { createLowdbStorage } = await import('../storage/lowdb-storage.js')
    const storage = await createLowdbStorage({ file: join(target.dataDir, defaults.storage.dbFile) }).catch(refuseBesideServer)
    return { records: storage.records, close: () => storage.close() }
  }
  const { RedisConnection } = await import('../redis/connection.js')
  const { createRedisStorage } = await import('../redis/redis-storage.js')
  const connection = await RedisConnection.connect(target.redis)
  const storage = createRedisStorage({ connection })
  return {
    records: storage.records,
    connection,
    async close() {
      await storage.close()
      await connection.close()
    },
  }
}

/**
 * Opens the authorization server over the deployment's store for one administrative operation,
 * then closes it. Embedded storage admits one process: beside a running server on the same
 * directory this is refused (stop the server first). On Redis it runs beside the nodes, with a
 * node's key files (sealed records open with its secrets.json), and what it revokes reaches every
 * node at once.
 */
export async function withAdminServer<T>(values: Record<string, string | boolean | undefined>, run: (as: AuthorizationServer) => Promise<T>): Promise<T> {
  const { dataDir, redis, config } = await adminTarget(values)
  if (redis !== undefined) {
    const secrets = join(dataDir, defaults.authServer.keys.secretsFile)
    await access(secrets).catch((error: unknown) => {
      throw new Error(`${secrets} is missing: with --redis, run this on a node of the deployment with its --data-dir (its key files open the sealed records)`, {
        cause: error,
      })
    })
  }
  const { createAuthorizationServer } = await import('../auth/server/create-authorization-server.js')
  const as = await createAuthorizationServer({ ...config, dataDir, ...(redis !== undefined ? { redis } : {}), observer: cliObserver() }).catch(refuseBesideServer)
  try {
    // every administration event of the command names the operator at this shell
    return await actingAs(cliOrigin({ ...(redis !== undefined ? { redis } : {}) }), () => run(as))
  } finally {
    await as.close()
  }
}

/**
 * A data directory a running server holds (its lock): the command says to go through that server
 * (`--server URL`) instead; any other failure is thrown as it is.
 */
export function refuseBesideServer(error: unknown): never {
  if (!(error instanceof StorageLockedError)) throw error
  throw new Error(`the server is running: add --server URL (or stop it). ${error.file} is in use by process ${error.pid}`, { cause: error })
}
