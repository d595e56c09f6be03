// Issue 27, item 7: a node on Redis tells administration commands where its store is, and never
// writes the Redis password down.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readRedisStoreMarker, redactedRedisUrl, removeRedisStoreMarker, writeRedisStoreMarker } from '../../src/cli/redis-store-marker.js'
import { defaults } from '../../src/config/defaults.js'

describe('redis store marker', () => {
  it('records the URL without its password, and the prefix; removed, it is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-marker-'))
    try {
      await writeRedisStoreMarker(dir, { url: 'redis://ops:s3cret-pass@redis.internal:6379/2' })
      expect(await readFile(join(dir, defaults.storage.redisMarkerFile), 'utf8')).not.toContain('s3cret-pass')
      expect(await readRedisStoreMarker(dir)).toEqual({ url: 'redis://ops:PASSWORD@redis.internal:6379/2', prefix: defaults.redis.prefix })
      await removeRedisStoreMarker(dir)
      expect(await readRedisStoreMarker(dir)).toBeUndefined()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('redacts a password given as a query parameter too', () => {
    expect(redactedRedisUrl('rediss://redis.internal:6380?password=s3cret')).toBe('rediss://redis.internal:6380?password=PASSWORD')
    expect(redactedRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379')
  })
})
