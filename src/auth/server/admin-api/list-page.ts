import { AdminProblem } from './problem.js'

/** A page of a list, as the API answers it. */
export interface ListPage<T> {
  items: T[]
  /** Give it as `cursor` for the next page; absent on the last one. */
  next_cursor?: string
}

/**
 * Walks a store's pages (`scan`) until `limit` items pass `keep` or the store ends, looking at no
 * more than `maxScanned` records per request (a rare search answers a short page and a cursor
 * instead of reading the whole store at once). Cursors are the store's, wrapped opaque.
 */
export async function collectPage<R, T>(options: {
  cursor: string | undefined
  limit: number
  maxScanned: number
  scan: (cursor: string | undefined, count: number) => Promise<{ entries: R[]; cursor?: string }>
  keep: (entry: R) => T | undefined
}): Promise<ListPage<T>> {
  let cursor = options.cursor === undefined ? undefined : unwrap(options.cursor)
  const items: T[] = []
  let scanned = 0
  do {
    const page = await options.scan(cursor, options.limit)
    scanned += page.entries.length
    for (const entry of page.entries) {
      const item = options.keep(entry)
      if (item !== undefined) items.push(item)
    }
    cursor = page.cursor
  } while (cursor !== undefined && items.length < options.limit && scanned < options.maxScanned)
  return { items, ...(cursor !== undefined ? { next_cursor: wrap(cursor) } : {}) }
}

const wrap = (cursor: string): string => Buffer.from(`v1:${cursor}`).toString('base64url')

function unwrap(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8')
  if (!text.startsWith('v1:')) throw new AdminProblem('invalid-request', 'cursor is not one this API gave: start the list again without it')
  return text.slice(3)
}
