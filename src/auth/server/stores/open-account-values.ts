import { access } from 'node:fs/promises'
import { join } from 'node:path'
import { defaults } from '../../../config/defaults.js'
import type { RedisConnection } from '../../../redis/connection.js'
import type { AuthStorage } from '../../../storage/types.js'
import { recordedClusterKeys } from '../keys/cluster-keys.js'
import { deriveSecret, loadServerSecrets, secretsDigest } from '../keys/server-secrets.js'
import { isRedisConnection } from '../options.js'
import { AccountStore } from './account-store.js'
import { ACCOUNT_VALUES_KEY_PURPOSE, AccountValuesStore } from './account-values-store.js'
import type { OpenedStorage } from './open-storage.js'

/** Where {@link openAccountValues} finds the values: a data directory's embedded store, or the deployment's Redis. */
export interface OpenAccountValuesOptions {
  /** The data directory: its `secrets.json` holds the data key (with Redis, a node's directory). */
  dataDir: string
  /** The deployment's Redis (`{ url, prefix }`, or a connection the caller keeps and closes). */
  redis?: { url: string; prefix?: string } | RedisConnection
}

/** What {@link openAccountValues} opened. */
export interface OpenedAccountValues {
  values: AccountValuesStore
  /** The local accounts of the same store, to resolve a username to its subject (their `id`). */
  accounts: AccountStore
  /** Closes the store (and the Redis connection, when this opened it). */
  close(): Promise<void>
}

/**
 * Opens the per-account values without an authorization server in the process: for a gateway
 * that trusts another authorization server, and for `mcp-auth user-env`. The embedded store
 * admits one process (a running server on the same directory makes this refuse); a missing
 * `secrets.json` is created only where no sealed data needs the lost one. With Redis the data
 * directory must hold the deployment's `secrets.json` (the one its nodes recorded), else this
 * refuses: values sealed under another key would not open on the nodes.
 *
 * @example
 * const { values, close } = await openAccountValues({ dataDir: './data', redis: { url: 'redis://10.0.0.5:6379' } })
 * const env = await values.valuesFor(subject)
 * await close()
 */
export async function openAccountValues(options: OpenAccountValuesOptions): Promise<OpenedAccountValues> {
  const opened = await open(options)
  try {
    const secrets = opened.connection === undefined ? await loadServerSecrets(options.dataDir, opened) : await deploymentSecrets(opened, options.dataDir)
    return {
      values: new AccountValuesStore(opened.storage, deriveSecret(secrets, ACCOUNT_VALUES_KEY_PURPOSE)),
      accounts: new AccountStore(opened.storage.records),
      close: () => opened.close(),
    }
  } catch (error) {
    await opened.close().catch(() => undefined)
    throw error
  }
}

async function open(options: OpenAccountValuesOptions): Promise<OpenedStorage> {
  if (options.redis === undefined) {
    const { createLowdbStorage } = await import('../../../storage/lowdb-storage.js')
    const storage = await createLowdbStorage({ file: join(options.dataDir, defaults.storage.dbFile) })
    return { storage, health: async () => true, close: () => storage.close() }
  }
  const owned = !isRedisConnection(options.redis)
  const connection = isRedisConnection(options.redis) ? options.redis : await (await import('../../../redis/connection.js')).RedisConnection.connect(options.redis)
  const storage: AuthStorage = (await import('../../../redis/redis-storage.js')).createRedisStorage({ connection })
  return {
    storage,
    connection,
    health: () => connection.ping(),
    async close() {
      await storage.close()
      if (owned) await connection.close()
    },
  }
}

/** The data directory's secrets, when they are the ones the deployment's nodes recorded. */
async function deploymentSecrets(opened: OpenedStorage, dataDir: string): ReturnType<typeof loadServerSecrets> {
  const path = join(dataDir, defaults.authServer.keys.secretsFile)
  await access(path).catch((error: unknown) => {
    throw new Error(`${path} is missing: with Redis, use a node's data directory (its secrets.json seals and opens the values)`, { cause: error })
  })
  const secrets = await loadServerSecrets(dataDir)
  const recorded = (await recordedClusterKeys(opened.storage.records))?.secrets
  if (recorded !== undefined && recorded !== secretsDigest(secrets)) {
    throw new Error(`${path} differs from the secrets.json the deployment's nodes use: copy it from a running node's data directory`)
  }
  return secrets
}
