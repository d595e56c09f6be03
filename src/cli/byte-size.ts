/** A size as an operator reads it: bytes below 1 kB, else kB or MB with one decimal (1 kB = 1000 bytes, as `ls -h --si`). */
export function byteSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`
  return `${(bytes / 1_000_000).toFixed(1)} MB`
}
