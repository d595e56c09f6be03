import { LocalError } from '../protocol/errors.js'

type Result = Record<string, unknown>

/**
 * Minimal checks on what a server answered, so callers never read `tools.length` of undefined:
 * the field a result is about must be there with the right type. Deeper validation is the
 * caller's choice; a server that breaks these rules gets a LocalError('invalid_response').
 */
export function requireArray(result: Result, field: string, method: string): void {
  if (!Array.isArray(result[field])) throw invalidResponse(method, `has no ${field} array`)
}

export function requireObject(result: Result, field: string, method: string): void {
  const value = result[field]
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidResponse(method, `has no ${field} object`)
}

export function optionalObject(result: Result, field: string, method: string): void {
  if (result[field] !== undefined) requireObject(result, field, method)
}

export function requireString(result: Result, field: string, method: string): void {
  if (typeof result[field] !== 'string') throw invalidResponse(method, `has no ${field} string`)
}

/** `nextCursor`, when present, is a string; `null` is read as "no more pages". */
export function readNextCursor(result: Result, method: string): string | undefined {
  const cursor = result.nextCursor
  if (cursor === undefined || cursor === null) return undefined
  if (typeof cursor !== 'string') throw invalidResponse(method, 'has a nextCursor that is not a string')
  return cursor
}

function invalidResponse(method: string, problem: string): LocalError {
  return new LocalError('invalid_response', `the server's ${method} result ${problem}`)
}
