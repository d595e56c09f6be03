// MCP 2026-07-28 (stateless: no initialize, no session) benchmark, in three parts, each writing
// its own section of docs/performance.md:
//   throughput  a stateless tools/call against the bare node:http ceiling, the official SDK v2
//               and ours, at c=1/10/64 (bench/stateless/throughput.mjs)
//   protected   the same behind an ES256 bearer token (bench/stateless/protected.mjs)
//   memory      server RSS holding N idle streams: 2025-11-25 sessions with a GET stream,
//               2026-07-28 subscriptions/listen streams, a bare node:http server's SSE
//               responses (bench/stateless/memory.mjs)
// Loopback only, bounded in time (about 12 minutes with the defaults).
// Usage: npm run bench:stateless [-- --seconds 4 --rounds 5 --protected-rounds 3 --streams 10000
//                                    --only throughput,protected,memory --no-write]
import { spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { positiveOption, printReport, requireWrk } from './harness.mjs'
import { runMemory } from './stateless/memory.mjs'
import { runProtected } from './stateless/protected.mjs'
import { runThroughput } from './stateless/throughput.mjs'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '5' },
    'protected-rounds': { type: 'string', default: '3' },
    streams: { type: 'string', default: '10000' },
    only: { type: 'string' },
    'no-write': { type: 'boolean' },
  },
})
const PARTS = ['throughput', 'protected', 'memory']
const only = values.only?.split(',').map((part) => part.trim()) ?? PARTS
const unknown = only.filter((part) => !PARTS.includes(part))
if (unknown.length) throw new Error(`--only takes ${PARTS.join(', ')}; not ${unknown.join(', ')}`)
const seconds = positiveOption(values, 'seconds')
const rounds = positiveOption(values, 'rounds', { integer: true })
const protectedRounds = positiveOption(values, 'protected-rounds', { integer: true })
const streams = positiveOption(values, 'streams', { integer: true })
const write = !values['no-write']

// The memory part holds `streams` sockets in the server and as many in the load process. Node
// raises its own soft open-file limit to the hard one at start and the children inherit it, so
// the hard limit is what counts; refuse clearly, before anything runs, when it is too low.
const FD_MARGIN = 1_000
if (only.includes('memory')) {
  const limit = Number(spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim().replace('unlimited', 'Infinity'))
  if (limit < streams + FD_MARGIN) {
    console.error(
      `--streams ${streams} needs ${streams + FD_MARGIN} open files per process, and this shell allows ${limit}: lower --streams, or raise the limit (ulimit -n; ulimit -Hn as root)`,
    )
    process.exit(2)
  }
}
if (only.includes('throughput') || only.includes('protected')) requireWrk('bench:stateless')

const started = Date.now()
const blocks = []
const warnings = []
let failed = false
for (const [part, run] of [
  ['throughput', () => runThroughput({ seconds, rounds, write })],
  ['protected', () => runProtected({ seconds, rounds: protectedRounds, write })],
  ['memory', () => runMemory({ count: streams, write })],
]) {
  if (!only.includes(part)) continue
  console.error(`\n== ${part} ==`)
  const result = await run()
  blocks.push(...result.blocks)
  warnings.push(...result.warnings)
  failed ||= result.failed
}
printReport(blocks, warnings, started)
if (failed) process.exitCode = 1
