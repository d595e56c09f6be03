/** A duration for a message: `300 ms`, `30 s`. */
export function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`
}
