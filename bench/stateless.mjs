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

// The memory part holds `streams` sockets in the server and as many in the load process; both
// inherit this process's open-file limit. Raise the soft limit by re-running under a shell that
// sets it (as far as the hard limit allows); refuse clearly when even the hard limit is too low.
const FD_MARGIN = 1_000
if (only.includes('memory')) {
  const limit = (flag) => Number(spawnSync('sh', ['-c', `ulimit ${flag}`], { encoding: 'utf8' }).stdout.trim().replace('unlimited', 'Infinity'))
  const needed = streams + FD_MARGIN
  const soft = limit('-Sn')
  if (soft < needed && !process.env.BENCH_STATELESS_FD_RAISED) {
    const hard = limit('-Hn')
    if (hard < needed) throw new Error(`--streams ${streams} needs ${needed} open files per process; the hard limit is ${hard}: lower --streams or raise it (ulimit -Hn, as root)`)
    const command = [process.execPath, ...process.execArgv, ...process.argv.slice(1)].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ')
    console.error(`open-file limit ${soft} < ${needed}: re-running with ulimit -n ${needed}`)
    const rerun = spawnSync('sh', ['-c', `ulimit -n ${needed} && exec ${command}`], { stdio: 'inherit', env: { ...process.env, BENCH_STATELESS_FD_RAISED: '1' } })
    process.exit(rerun.status ?? 1)
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
