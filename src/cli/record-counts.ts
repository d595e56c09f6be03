/** Counts per kind on one line, by name: `Client 12, Grant 3`, or `none`. */
export function recordCounts(what: Record<string, number>): string {
  const entries = Object.entries(what).sort(([a], [b]) => a.localeCompare(b))
  return entries.length === 0 ? 'none' : entries.map(([name, count]) => `${name} ${count}`).join(', ')
}
