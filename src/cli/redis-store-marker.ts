import { join } from 'node:path'
import { defaults } from '../config/defaults.js'
import { rm } from 'node:fs/promises'
import { readJsonFile, writePrivateFile } from '../storage/private-file.js'
import type { RedisChoice } from './redis-option.js'

/** What a node on Redis leaves in its data directory: where its store is (never the password). */
export interface RedisStoreMarker {
  /** The Redis URL with its password replaced by `PASSWORD`. */
  url: string
  prefix: string
}

/** The URL as it may be shown and written down: the password replaced by `PASSWORD`. */
export function redactedRedisUrl(url: string): string {
  const copy = new URL(url)
  if (copy.password !== '') copy.password = 'PASSWORD'
  if (copy.searchParams.has('password')) copy.searchParams.set('password', 'PASSWORD')
  return copy.href.replace(/\/$/, '')
}

/**
 * Records in `dataDir` that this data directory belongs to a node whose store is in Redis, so an
 * administration command pointed at it without --redis refuses and says where the store is,
 * instead of writing a local file no node reads.
 */
export async function writeRedisStoreMarker(dataDir: string, choice: RedisChoice): Promise<void> {
  const marker: RedisStoreMarker = { url: redactedRedisUrl(choice.url), prefix: choice.prefix ?? defaults.redis.prefix }
  await writePrivateFile(join(dataDir, defaults.storage.redisMarkerFile), `${JSON.stringify(marker, null, 2)}\n`)
}

/** The marker a node on Redis left in `dataDir`, if any. */
export async function readRedisStoreMarker(dataDir: string): Promise<RedisStoreMarker | undefined> {
  const marker = await readJsonFile<Partial<RedisStoreMarker>>(join(dataDir, defaults.storage.redisMarkerFile))
  if (marker === undefined || typeof marker.url !== 'string') return undefined
  return { url: marker.url, prefix: typeof marker.prefix === 'string' ? marker.prefix : defaults.redis.prefix }
}

/** A server on the data directory's own store again: the directory no longer points at Redis. */
export async function removeRedisStoreMarker(dataDir: string): Promise<void> {
  await rm(join(dataDir, defaults.storage.redisMarkerFile), { force: true })
}
