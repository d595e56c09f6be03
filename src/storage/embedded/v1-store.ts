import type { OidcPayload } from '../types.js'
import { emptyDocument, storedModel, type StoreDocument, type StoredModel } from './store-document.js'

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

function tablesInto<V>(
  target: Map<string, Map<string, V>>,
  value: unknown,
  where: string,
  check: (entry: unknown) => boolean,
  convert: (entry: never) => V = (entry) => entry,
): void {
  if (!isObject(value)) throw new Error(`${where} is not an object`)
  for (const [name, entries] of Object.entries(value)) {
    if (!isObject(entries)) throw new Error(`${where}.${name} is not an object`)
    const table = new Map<string, V>()
    for (const [id, entry] of Object.entries(entries)) {
      if (!check(entry)) throw new Error(`${where}.${name}[${JSON.stringify(id)}] is malformed`)
      table.set(id, convert(entry as never))
    }
    target.set(name, table)
  }
}

/**
 * The document of a format-1 store (one JSON object: `{ version: 1, models, records }`, the whole
 * store rewritten on every write), for its migration. Throws on anything malformed.
 */
export function documentOfV1(raw: Record<string, unknown>, file: string): StoreDocument {
  const document = emptyDocument()
  try {
    tablesInto<StoredModel>(
      document.models,
      raw['models'],
      'models',
      (entry) => isObject(entry) && isObject(entry['payload']) && (entry['expiresAt'] === undefined || typeof entry['expiresAt'] === 'number'),
      (entry: { payload: OidcPayload; expiresAt?: number }) => storedModel(entry.payload, JSON.stringify(entry.payload), entry.expiresAt),
    )
    tablesInto<object>(document.records, raw['records'], 'records', isObject)
  } catch (error) {
    throw new Error(`storage file ${file} is malformed: ${(error as Error).message}`, { cause: error })
  }
  return document
}
