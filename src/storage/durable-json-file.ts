import { readFile } from 'node:fs/promises'
import type { Adapter } from 'lowdb'
import { writePrivateFile } from './private-file.js'

interface Batch<T> {
  data: T
  promise: Promise<void>
  resolve: () => void
  reject: (error: unknown) => void
}

function batchOf<T>(data: T): Batch<T> {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { data, promise, resolve, reject }
}

/**
 * A lowdb adapter for a JSON file that survives crashes: each write goes to a 0600 temp file that
 * is fsynced and renamed over the target, then the directory (created 0700) is fsynced. Concurrent
 * writes are group-committed (one write in flight, one pending snapshot), and a `write()` resolves
 * only once a file holding its data is durable, so callers may acknowledge to clients right after.
 *
 * A file that does not parse, or holds `null`, is refused, never overwritten.
 *
 * @example
 * import { Low } from 'lowdb'
 * const db = new Low(new DurableJsonFile<{ posts: string[] }>('./data/db.json'), { posts: [] })
 * await db.read()
 * db.data.posts.push('hello')
 * await db.write() // on disk once this resolves
 */
export class DurableJsonFile<T> implements Adapter<T> {
  readonly #file: string
  #pending: Batch<T> | undefined
  #draining = false
  #corrupt: Error | undefined

  constructor(file: string) {
    this.#file = file
  }

  /** The parsed file, or null when it does not exist. */
  async read(): Promise<T | null> {
    let text: string
    try {
      text = await readFile(this.#file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
    let data: T | null
    try {
      data = JSON.parse(text) as T | null
    } catch (error) {
      this.#corrupt = new Error(`storage file ${this.#file} is corrupt (not valid JSON); refusing to use or overwrite it: restore it from a backup or move it away`, {
        cause: error,
      })
      throw this.#corrupt
    }
    // lowdb reads null as "no file yet" and would start empty over the top of it: a file holding
    // null (or nothing) is damage, not a fresh store.
    if (data === null) {
      this.#corrupt = new Error(`storage file ${this.#file} holds no data (null); refusing to start empty over it: restore it from a backup or move it away`)
      throw this.#corrupt
    }
    this.#corrupt = undefined
    return data
  }

  /** Resolves once a write that includes `data` (or a later snapshot) is durable on disk. */
  write(data: T): Promise<void> {
    // Writing after a corrupt read would replace the only copy an operator could still repair.
    if (this.#corrupt !== undefined) return Promise.reject(this.#corrupt)
    if (this.#pending !== undefined) {
      this.#pending.data = data
      return this.#pending.promise
    }
    const batch = batchOf(data)
    this.#pending = batch
    if (!this.#draining) void this.#drain()
    return batch.promise
  }

  async #drain(): Promise<void> {
    this.#draining = true
    while (this.#pending !== undefined) {
      const batch = this.#pending
      this.#pending = undefined
      try {
        // Serialized when the write starts, so it carries every change made up to this moment.
        await writePrivateFile(this.#file, JSON.stringify(batch.data))
        batch.resolve()
      } catch (error) {
        batch.reject(error)
      }
    }
    this.#draining = false
  }
}
