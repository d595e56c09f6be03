// HTTP benchmark: tools/call throughput and p50/p99 at concurrency 1, 10, 64 for a bare node:http
// ceiling, the official SDK (stateless JSON; stateful SSE) and ours (stateless; stateful), in one
// run, with wrk. Server pinned to core 1, wrk to core 0; c=1 is measured a second time with both on
// core 0 (see MODES). Several rounds, interleaved, median per cell. Loopback only, bounded in time.
// With --baseline DIR (a checkout of an earlier commit, built: its dist/), the same run also measures
// that build's (c) and (e), interleaved with this build's, and reports this build / the baseline
// (no regression: medians within 5%) in a section of its own.
// Usage: npm run bench:http [-- --seconds 4 --rounds 3 --no-write --only a,b,d --baseline DIR]
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { commitOf, machineLine, writeSection } from './report.mjs'
import {
  logMeasurement,
  pin,
  positiveOption,
  printReport,
  ratioRows,
  requireWrk,
  resultTable,
  runRounds,
  runWarnings,
  runWrk,
  startServer,
  summarize,
  TOOLS_CALL_BODY,
} from './harness.mjs'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '5' },
    'no-write': { type: 'boolean' },
    only: { type: 'string' },
    baseline: { type: 'string' },
  },
})
const SECONDS = positiveOption(values, 'seconds')
const ROUNDS = positiveOption(values, 'rounds', { integer: true })
// Each column of the tables. c=10 and c=64 run the server on core 1 and wrk on core 0. At c=1 a
// split like that measures this VM's cross-core wake-up more than any server: one connection spends
// most of each round trip waking the other core (~120 µs for the bare ceiling, against ~25 µs
// for a whole request when both share a core), and the bare ceiling itself reaches only about
// 2.5x the SDK there. So the c=1 goals are judged with the server and wrk on core 0, where the
// figure is what each request costs; the split c=1 column is kept for reference, without verdicts.
const MODES = [
  { key: '1', label: 'c=1 (one core)', connections: 1, serverCore: '0', wrkCore: '0', goal: true },
  { key: '10', label: 'c=10', connections: 10, serverCore: '1', wrkCore: '0', goal: true },
  { key: '64', label: 'c=64', connections: 64, serverCore: '1', wrkCore: '0', goal: true },
  { key: '1-split', label: 'c=1, split cores (reference)', connections: 1, serverCore: '1', wrkCore: '0', goal: false },
]
const WARMUP = { connections: 10, seconds: 5 }
const START_TIMEOUT_MS = 10_000
const FETCH_TIMEOUT_MS = 5_000
const PROTOCOL_VERSION = '2025-11-25'
const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const CLI = here('../dist/cli/main.js')

requireWrk('bench:http')
// Server on core 1, wrk on core 0: the steadiest figures on the 2-core development machine.

const ours = (cli, ...flags) => ({ args: [cli, 'demo-server', '--port', '0', '--host', '127.0.0.1', ...flags], needs: cli, flags })
// The baseline build's CLI, for its (c) and (e) beside this build's.
const BASELINE = values.baseline === undefined ? undefined : join(values.baseline, 'dist/cli/main.js')
if (BASELINE !== undefined && !existsSync(BASELINE)) throw new Error(`--baseline ${values.baseline}: no dist/cli/main.js there (build that checkout first)`)
const BASELINE_KEYS = ['c', 'e']
const anchorsAndOurs = [
  { key: 'a', label: '(a) bare node:http ceiling', args: [here('./fixtures/http-ceiling.mjs')], stateful: false },
  { key: 'b', label: '(b) official SDK, stateless JSON', args: [here('./fixtures/sdk-http-stateless.mjs')], stateful: false },
  { key: 'c', label: '(c) mcp-auth, stateless JSON', ...ours(CLI, '--stateless', '--json'), stateful: false },
  { key: 'd', label: '(d) official SDK, stateful, SSE answers', args: [here('./fixtures/sdk-http-stateful.mjs')], stateful: true },
  { key: 'e', label: '(e) mcp-auth, stateful, SSE answers', ...ours(CLI), stateful: true },
]
const allServers =
  BASELINE === undefined
    ? anchorsAndOurs
    : anchorsAndOurs.flatMap((server) =>
        BASELINE_KEYS.includes(server.key)
          ? [server, { ...server, ...ours(BASELINE, ...server.flags), key: `${server.key}-baseline`, label: `${server.label} (baseline build)` }]
          : [server],
      )
const only = values.only?.split(',').map((key) => key.trim())
const servers = only ? allServers.filter((server) => only.includes(server.key)) : allServers
// A partial run must not replace the full table in docs/performance.md.
const write = !values['no-write'] && !only

async function start(server) {
  const { child, url } = await startServer(server.args, START_TIMEOUT_MS)
  return { child, url: new URL('/mcp', url).href }
}

const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
const post = (url, headers, message) =>
  fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(message), signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) })

async function openSession(url) {
  const init = await post(
    url,
    {},
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    },
  )
  const text = await init.text()
  const sessionId = init.headers.get('mcp-session-id')
  if (!init.ok || !sessionId) throw new Error(`initialize answered ${init.status} without Mcp-Session-Id: ${text.slice(0, 200)}`)
  const headers = { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': PROTOCOL_VERSION }
  const initialized = await post(url, headers, { jsonrpc: '2.0', method: 'notifications/initialized' })
  await initialized.text()
  if (!initialized.ok) throw new Error(`notifications/initialized answered ${initialized.status}`)
  return sessionId
}

// One real call, the same one wrk sends, so a misconfigured server fails loudly instead of being
// measured. The text check works for JSON bodies and SSE streams alike; the ceiling's fixed answer
// says "hi" too.
async function verify(url, sessionId) {
  const headers = sessionId ? { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': PROTOCOL_VERSION } : {}
  const res = await post(url, headers, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } })
  const text = await res.text()
  if (res.status !== 200 || !text.includes('"text":"hi"')) throw new Error(`tools/call check answered ${res.status}: ${text.slice(0, 200)}`)
}

// Moves every thread of a running server to one core.
function pinServer(child, core) {
  if (pin) spawnSync('taskset', ['-a', '-p', '-c', core, String(child.pid)], { stdio: 'ignore' })
}

function wrk(url, connections, seconds, sessionId, core = '0') {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
  if (sessionId) Object.assign(headers, { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': PROTOCOL_VERSION })
  return runWrk({ url, connections, seconds, core, headers, body: TOOLS_CALL_BODY })
}

async function measure(server, round) {
  if (server.needs && !existsSync(server.needs)) throw new Error('dist/cli/main.js not built (npm run build)')
  const { child, url } = await start(server)
  try {
    const sessionId = server.stateful ? await openSession(url) : undefined
    await verify(url, sessionId)
    await wrk(url, WARMUP.connections, WARMUP.seconds, sessionId)
    const byMode = {}
    for (const mode of MODES) {
      pinServer(child, mode.serverCore)
      byMode[mode.key] = await wrk(url, mode.connections, SECONDS, sessionId, mode.wrkCore)
      logMeasurement(round, server, mode, byMode[mode.key])
    }
    return byMode
  } finally {
    child.kill('SIGKILL')
  }
}

// Rounds interleave the servers (the order rotates each round) so a slow spell of the machine
// does not land on one server only; each cell is the median of its rounds.
const started = Date.now()
const { runs, unavailable } = await runRounds(servers, ROUNDS, measure)
const results = summarize(servers, MODES, runs, unavailable)
const row = ratioRows(results, runs, MODES)
const percent = (value) => `${(value * 100).toFixed(0)}%`
const times = (value) => `${value.toFixed(2)}×`
// goal cells: the ratio of the medians, its verdict, and its range round by round (c=1 split: no verdict)
const goal = (target) => ({ met: (value) => value >= target, judged: (mode) => mode.goal })
const goals = [
  `| goal | ${MODES.map((mode) => mode.label).join(' | ')} |`,
  `| --- |${' ---: |'.repeat(MODES.length)}`,
  row('(c) / (a): ours stateless vs ceiling, goal ≥ 50%', 'c', 'a', percent, goal(0.5)),
  row('(e) / (d): ours stateful vs SDK stateful, goal ≥ 3×', 'e', 'd', times, goal(3)),
  row('(c) / (b): ours stateless vs SDK stateless (no goal)', 'c', 'b', times),
  row('(a) / (d): the most any server could reach on the (e) / (d) goal', 'a', 'd', times),
  ...(BASELINE === undefined ? [] : BASELINE_KEYS.map((key) => row(`(${key}): this build / baseline build, no regression (≥ 95%)`, key, `${key}-baseline`, percent, goal(0.95)))),
].join('\n')
const table = resultTable(servers, MODES, results, unavailable)
const { warnings, failed } = runWarnings(results, unavailable, (key) => `(${key})`)
printReport([table, goals], warnings, started)

if (write && BASELINE !== undefined) {
  await writeSection(
    'http-regression',
    `## HTTP: this build against an earlier one (no regression)

Command: \`npm run bench:http -- --baseline DIR\` (DIR: a built checkout of the earlier commit, e.g.
\`git worktree add DIR <commit> && (cd DIR && ln -s $PWD/node_modules && npm run build)\`). This build: ${commitOf(here('..'))};
baseline: ${commitOf(values.baseline)}. The same method as the section "HTTP: tools/call throughput and latency"
(${ROUNDS} rounds, the servers interleaved and the order rotated, medians, the same cores), with (c) and (e) of both
builds (\`demo-server\` of each build's dist/) in every round. "No regression" is this build's median at least 95% of
the baseline's.
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${goals}`,
  )
} else if (write) {
  await writeSection(
    'http',
    `## HTTP: tools/call throughput and latency

Command: \`npm run bench:http\` (builds, then \`node bench/http.mjs --seconds ${SECONDS} --rounds ${ROUNDS}\`; needs Debian's \`wrk\`).
Each server is started fresh on 127.0.0.1, checked with one real tools/call, warmed up for
${WARMUP.seconds} s at c=${WARMUP.connections}, then loaded by \`wrk -t1 -c<N> -d${SECONDS}s --latency\` with \`bench/wrk/post.lua\`
(echo tool, JSON-RPC id varies per request). Stateful servers get one session opened first;
every request carries its Mcp-Session-Id. req/s counts 2xx answers only. ${ROUNDS} rounds, the
servers interleaved (order rotated each round); every figure is the median of its rounds, and a
goal cell gives in brackets the range of its ratio round by round.
${
  pin
    ? `At c=10 and c=64 the server is pinned to core 1 and wrk to core 0 (taskset). At c=1 both run on core 0: split
across cores, one connection mostly measures this VM's cross-core wake-up (the bare ceiling's p50 is
~120 µs there against ~30 µs on one core, and it reaches only ~2.5× the SDK, so no server could show
3× there); that split c=1 column is kept for reference, without verdicts.`
    : 'No taskset: not pinned (the c=1 columns are then the same measurement twice).'
}
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${goals}`,
  )
}
if (failed) process.exitCode = 1
