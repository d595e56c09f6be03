import type { RecordPage } from './types.js'

/**
 * A page of an in-process collection for {@link RecordStore.scan}: the cursor is the position in
 * the map's insertion order, so a record deleted during a walk may let the next page skip one
 * (the store's contract allows it, as Redis's HSCAN does).
 */
export function scanMap<T>(map: ReadonlyMap<string, object> | undefined, cursor: string | undefined, count: number, copy: (value: object) => T): RecordPage<T> {
  const start = cursor === undefined ? 0 : Number.parseInt(cursor, 10)
  if (!Number.isSafeInteger(start) || start < 0) throw new TypeError(`not a cursor of this store: ${cursor}`)
  const entries: RecordPage<T>['entries'] = []
  if (map === undefined) return { entries }
  let index = 0
  for (const [id, value] of map) {
    if (index++ < start) continue
    if (entries.length === count) return { entries, cursor: String(start + count) }
    entries.push({ id, value: copy(value) })
  }
  return { entries }
}
