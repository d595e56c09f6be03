import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DurableJsonFile } from '../../src/storage/durable-json-file.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'durable-json-file-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('DurableJsonFile', () => {
  it('reads null when the file does not exist', async () => {
    expect(await new DurableJsonFile(join(dir, 'db.json')).read()).toBeNull()
  })

  it('reads back what it wrote', async () => {
    const file = join(dir, 'db.json')
    await new DurableJsonFile(file).write({ posts: ['ünïcödé', 1, null] })
    expect(await new DurableJsonFile(file).read()).toEqual({ posts: ['ünïcödé', 1, null] })
  })

  it('creates a missing directory 0700 and the file 0600, leaving no temp file behind', async () => {
    const file = join(dir, 'nested', 'data', 'db.json')
    await new DurableJsonFile(file).write({ ok: true })
    expect((await stat(join(dir, 'nested', 'data'))).mode & 0o777).toBe(0o700)
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(await readdir(join(dir, 'nested', 'data'))).toEqual(['db.json'])
  })

  it('refuses a corrupt file, names it, and never overwrites it', async () => {
    const file = join(dir, 'db.json')
    await writeFile(file, '{"version": 1, "models": {')
    const adapter = new DurableJsonFile(file)
    const error = await adapter.read().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain('corrupt')
    expect((error as Error).message).toContain(file)
    await expect(adapter.write({ fresh: true })).rejects.toThrow(/corrupt/)
    expect(await readFile(file, 'utf8')).toBe('{"version": 1, "models": {')
  })

  it('resolves each concurrent write only once a file holding its data is on disk', async () => {
    const file = join(dir, 'db.json')
    const adapter = new DurableJsonFile<{ n: number }>(file)
    const seen = await Promise.all(
      Array.from({ length: 50 }, async (_, n) => {
        await adapter.write({ n })
        return (JSON.parse(await readFile(file, 'utf8')) as { n: number }).n
      }),
    )
    for (const [n, onDisk] of seen.entries()) expect(onDisk).toBeGreaterThanOrEqual(n)
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ n: 49 })
  })

  it('coalesces writes that arrive while one is in flight into a single later write', async () => {
    const file = join(dir, 'db.json')
    const adapter = new DurableJsonFile<{ n: number }>(file)
    const first = adapter.write({ n: 0 })
    const second = adapter.write({ n: 1 })
    const third = adapter.write({ n: 2 })
    expect(second).toBe(third)
    expect(first).not.toBe(second)
    await Promise.all([first, second, third])
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ n: 2 })
  })

  it('rejects the callers of a failed write and keeps writing afterwards', async () => {
    const file = join(dir, 'db.json')
    const adapter = new DurableJsonFile<{ n: unknown }>(file)
    await expect(adapter.write({ n: 1n })).rejects.toThrow(TypeError)
    await adapter.write({ n: 2 })
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ n: 2 })
  })
})
