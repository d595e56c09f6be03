import { ErrorCode, JsonRpcError } from '../jsonrpc/index.js'

/**
 * Opaque cursors for the list methods: the offset of the next page, wrapped so clients do not
 * build them. A cursor we did not issue is refused with -32602.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination
 */
export function paginate<T>(items: readonly T[], cursor: unknown, pageSize: number): { page: T[]; nextCursor?: string } {
  const offset = cursor === undefined ? 0 : decodeCursor(cursor)
  if (offset > items.length) throw invalidCursor()
  const end = offset + pageSize
  const page = items.slice(offset, end)
  return end < items.length ? { page, nextCursor: encodeCursor(end) } : { page }
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url')
}

function decodeCursor(cursor: unknown): number {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 64) throw invalidCursor()
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown }
    if (typeof decoded.o === 'number' && Number.isSafeInteger(decoded.o) && decoded.o >= 0) return decoded.o
  } catch {
    // fall through to the refusal
  }
  throw invalidCursor()
}

function invalidCursor(): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: invalid cursor')
}
