import { defaults } from '../config/defaults.js'
import { LocalError } from '../protocol/errors.js'

/** One page of a list method: its items and the cursor of the next page, if any. */
export interface Page<T> {
  items: T[]
  nextCursor?: string | undefined
}

/**
 * Follow `nextCursor` until the server stops sending one and return every item. A server that
 * hands back a cursor it already gave, or new cursors without end, would loop forever: a repeated
 * cursor and more than `defaults.client.maxListPages` pages are refused instead.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination
 */
export async function listAllPages<T>(method: string, fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  let pages = 0
  do {
    if (++pages > defaults.client.maxListPages) {
      throw new LocalError('invalid_response', `the server sent more than ${defaults.client.maxListPages} pages of ${method}; stopped`)
    }
    const page = await fetchPage(cursor)
    items.push(...page.items)
    cursor = page.nextCursor
    if (cursor !== undefined) {
      if (seen.has(cursor)) {
        throw new LocalError('invalid_response', `the server repeated the ${method} cursor ${JSON.stringify(cursor)}; stopped to avoid a loop`)
      }
      seen.add(cursor)
    }
  } while (cursor !== undefined)
  return items
}
