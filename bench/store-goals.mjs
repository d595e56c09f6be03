// The goals of issue 30, judged from one bench:store run's figures: one markdown list item per
// goal and store, with the figures, the ratio and PASS or FAIL (or why it was not measured).
// The issue sets them for the embedded store; Redis and the in-memory store are judged the same
// way beside it, for reference.

const BASE = 1_000
const FILLED = 100_000
const LARGEST = 1_000_000
const KEPT_SHARE = 0.8
const P99_FACTOR = 3
const WRITE_COST_MS = 1
const START_SECONDS = 10

const n = (value) => value.toLocaleString('en', { maximumFractionDigits: 0 })
const ms = (value) => (value < 10 ? value.toFixed(2) : value.toFixed(0))
const pct = (value) => `${(value * 100).toFixed(0)}%`
const mib = (bytes) => (bytes === undefined ? 'n/a' : `${(bytes / 2 ** 20).toFixed(0)} MiB`)

/**
 * `results` and `unavailable` are keyed `<store key>:<records>` (bench/store.mjs summarizeCell);
 * returns `{ lines }`, markdown list items.
 */
export function readStoreGoals(stores, results, unavailable) {
  const lines = ['The issue sets these goals for the embedded store (lowdb); Redis and the in-memory store are judged the same way, for reference.', '']
  const summary = []
  for (const store of stores) {
    const judged = { passed: 0, failed: 0 }
    const verdict = (met) => {
      judged[met ? 'passed' : 'failed'] += 1
      return met ? '**PASS**' : '**FAIL**'
    }
    const cell = (size) => results[`${store.key}:${size}`]
    // a size the run could not measure fails its goals; a size left out of the run is only not judged
    const missing = (size) => {
      const reason = unavailable[`${store.key}:${size}`]
      return reason === undefined ? `not measured (${n(size)} records not in this run)` : `could not be measured at ${n(size)} records (${reason}): ${verdict(false)}`
    }
    const base = cell(BASE)
    const filled = cell(FILLED)
    const largest = cell(LARGEST)
    const name = `**${store.label}**`

    const kept = (label, figure, show) => {
      if (base === undefined) return `- ${name}, ${label} at ${n(FILLED)} records with the writer ≥ ${pct(KEPT_SHARE)} of ${n(BASE)}: ${missing(BASE)}.`
      if (filled === undefined) return `- ${name}, ${label} at ${n(FILLED)} records with the writer ≥ ${pct(KEPT_SHARE)} of ${n(BASE)}: ${missing(FILLED)}.`
      const share = figure(filled) / figure(base)
      return `- ${name}, ${label} with the writer: ${show(figure(filled))} at ${n(FILLED)} records, ${pct(share)} of ${show(figure(base))} at ${n(BASE)} (goal ≥ ${pct(KEPT_SHARE)}): ${verdict(share >= KEPT_SHARE)}.`
    }
    lines.push(
      kept(
        'token throughput',
        (r) => r.loadedRps,
        (value) => `${n(value)} tokens/s`,
      ),
    )
    lines.push(
      kept(
        'writes',
        (r) => r.writesPerSecond,
        (value) => `${value.toFixed(1)} writes/s`,
      ),
    )

    if (filled === undefined) {
      lines.push(`- ${name}, token p99 with the writer ≤ ${P99_FACTOR}× the quiet p99: ${missing(FILLED)}.`)
      lines.push(`- ${name}, main-thread cost of a storage write ≤ ${WRITE_COST_MS} ms: ${missing(FILLED)}.`)
    } else {
      const factor = filled.loadedP99 / filled.quietP99
      lines.push(
        `- ${name}, token p99 at ${n(FILLED)} records: ${ms(filled.loadedP99)} ms with the writer, ${factor.toFixed(1)}× the ${ms(filled.quietP99)} ms alone (goal ≤ ${P99_FACTOR}×): ${verdict(factor <= P99_FACTOR)}.`,
      )
      lines.push(
        filled.costP50 === undefined
          ? `- ${name}, main-thread cost of a storage write at ${n(FILLED)} records: no write was timed: ${verdict(false)}.`
          : `- ${name}, main-thread cost of a storage write at ${n(FILLED)} records: p50 ${ms(filled.costP50)} ms (p99 ${ms(filled.costP99)}, max ${ms(filled.costMax)}; event-loop delay with the writer p99 ${ms(filled.delayP99)}, max ${ms(filled.delayMax)} ms) (goal: p50 ≤ ${WRITE_COST_MS} ms): ${verdict(filled.costP50 <= WRITE_COST_MS)}.`,
      )
    }

    if (largest === undefined) {
      lines.push(`- ${name}, ${n(LARGEST)} records (start ≤ ${START_SECONDS} s, RSS, the workload runs): ${missing(LARGEST)}.`)
    } else {
      const ran = largest.loadedRps > 0 && largest.writesPerSecond > 0 && largest.failed === 0 && largest.writerFailed === 0
      lines.push(
        `- ${name}, ${n(LARGEST)} records: started in ${(largest.startMs / 1000).toFixed(1)} s (goal ≤ ${START_SECONDS} s): ${verdict(largest.startMs <= START_SECONDS * 1000)}; RSS ${mib(largest.rssStart)} after start, ${mib(largest.rssEnd)} at the end; the workload ${ran ? 'ran' : 'did not run cleanly'} (${n(largest.loadedRps)} tokens/s and ${largest.writesPerSecond.toFixed(1)} writes/s with the writer, ${largest.failed} failed token requests, ${largest.writerFailed} failed writer phases): ${verdict(ran)}.`,
      )
    }
    summary.push(`${store.label} ${judged.passed} PASS, ${judged.failed} FAIL`)
  }
  lines.push('', `Goals judged in this run: ${summary.join('; ')}.`)
  return { lines }
}
