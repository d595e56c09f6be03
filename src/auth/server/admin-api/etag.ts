import { AdminProblem } from './problem.js'

/**
 * The ETag of a versioned record: its creation time and revision, so a record deleted and made
 * again never matches what an administrator read of the old one.
 */
export function etagOf(record: { createdAt?: number; addedAt?: number; rev?: number }): string {
  const born = (record.createdAt ?? record.addedAt ?? 0).toString(36)
  return `"${born}.${record.rev ?? 0}"`
}

/**
 * The revision an `If-Match` holds the write to: undefined without the header (the write applies
 * to whatever is there); 412 when it names another version than the record's now.
 */
export function revisionToMatch(ifMatch: string | undefined, record: { createdAt?: number; addedAt?: number; rev?: number }, what: string): number | undefined {
  if (ifMatch === undefined) return undefined
  const current = etagOf(record)
  const listed = ifMatch.split(',').map((tag) => tag.trim())
  if (listed.includes('*') || listed.includes(current)) return record.rev ?? 0
  throw new AdminProblem('precondition-failed', `${what} changed since it was read (ETag now ${current}): read it again and reapply the change`)
}
