// Gateway benchmark (issue 31): server-everything's echo tool (a stdio MCP server from npm,
// unmodified) behind our gateway (`mcp-auth gateway`, the token checked on every request) and
// behind supergateway 4.0 (no auth), in the same run, with wrk:
//   anchors  (A) the child alone over its own stdio, 10 calls in flight (bench/gateway/stdio-load.mjs);
//            (B) supergateway stdio → Streamable HTTP, stateful, one session, c=10 and c=64;
//            supergateway stateless (a child per request), c=10, a short run
//   ours     `mcp-auth gateway`: one stateful session at c=10 and c=64; 2026-07-28 stateless
//            requests (one long-lived child for the principal) at c=10 and c=64
//   memory   our gateway's RSS with no session, per child and per idle session
// Goals (PASS/FAIL): our stateful ≥ 5× supergateway stateful at c=10 and at c=64; our stateless
// ≥ 0.5× our stateful. The server (and every process it starts) is pinned to core 1, wrk and the
// stdio load to core 0; rounds interleave the targets (order rotated), each figure is a median.
// Writes the `gateway` section of docs/performance.md (not with --quick or --no-write, nor without
// the anchors: a ratio needs both sides of one run).
// Usage: npm run bench:gateway [-- --seconds 5 --rounds 3 --sessions 50 --only anchors,ours,memory --quick --no-write --cli PATH]
import { existsSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { median, pin, positiveOption, printReport, requireWrk, runRounds, runWrk } from './harness.mjs'
import { machineLine, writeSection } from './report.mjs'
import { BASE_HEADERS, checkEcho, checkRefusedWithoutToken, ECHO_BODY, openSession, STATELESS_ECHO_BODY, STATELESS_HEADERS, STATELESS_VERSION } from './gateway/http-session.mjs'
import { measureMemory, mib, SESSIONS_PER_PRINCIPAL, SETTLE_MS } from './gateway/memory.mjs'
import { startGateway, startSupergateway } from './gateway/processes.mjs'
import { measureStdio } from './gateway/stdio-anchor.mjs'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    sessions: { type: 'string', default: '50' },
    cli: { type: 'string' },
    only: { type: 'string' },
    quick: { type: 'boolean' },
    'no-write': { type: 'boolean' },
  },
})
const PARTS = ['anchors', 'ours', 'memory']
const only = values.only?.split(',').map((part) => part.trim()) ?? PARTS
const unknown = only.filter((part) => !PARTS.includes(part))
if (unknown.length) throw new Error(`--only takes ${PARTS.join(', ')}; not ${unknown.join(', ')}`)
const QUICK = values.quick === true
const SECONDS = QUICK ? 2 : positiveOption(values, 'seconds')
const ROUNDS = QUICK ? 1 : positiveOption(values, 'rounds', { integer: true })
const SESSIONS = QUICK ? 10 : positiveOption(values, 'sessions', { integer: true })
const WARMUP_SECONDS = QUICK ? 1 : 3
// supergateway stateless starts a process per request: a few per second, so a short run is enough
const STATELESS_ANCHOR_SECONDS = QUICK ? 5 : 10
const write = !values['no-write'] && !QUICK && only.includes('anchors')
const SERVER_CORE = '1'
const LOAD_CORE = '0'

const here = (path) => fileURLToPath(new URL(path, import.meta.url))
// --cli: another build's CLI (e.g. a checkout where the gateway is further along); default this one's
const CLI = values.cli ?? here('../dist/cli/main.js')
const EVERYTHING = here('../node_modules/.bin/mcp-server-everything')
const SUPERGATEWAY = here('../node_modules/.bin/supergateway')
for (const [path, what] of [
  [EVERYTHING, '@modelcontextprotocol/server-everything'],
  [SUPERGATEWAY, 'supergateway'],
]) {
  if (!existsSync(path)) throw new Error(`${what} is not installed (npm ci installs the devDependencies)`)
}
requireWrk('bench:gateway')

const mode = (key, label, connections, seconds = SECONDS) => ({ key, label, connections, seconds })
const TARGETS = [
  {
    part: 'anchors',
    key: 'stdio',
    label: '(A) server-everything alone, over its own stdio',
    modes: [mode('10', '10 in flight', 10)],
    measure: (round) =>
      measureStdio({ command: [EVERYTHING], body: ECHO_BODY, seconds: SECONDS, warmup: WARMUP_SECONDS, inFlight: 10, serverCore: SERVER_CORE, loadCore: LOAD_CORE, round }),
  },
  {
    part: 'anchors',
    key: 'sg-stateful',
    label: '(B) supergateway 4.0, stateful, one session (no auth)',
    modes: [mode('10', 'c=10', 10), mode('64', 'c=64', 64)],
    measure: (round, target) =>
      measureHttp(
        target,
        round,
        () => startSupergateway({ bin: SUPERGATEWAY, command: EVERYTHING, stateful: true, core: SERVER_CORE }),
        (url) => openSession(url),
      ),
  },
  {
    part: 'anchors',
    key: 'sg-stateless',
    label: '(B) supergateway 4.0, stateless: a child per request (no auth)',
    modes: [mode('10', 'c=10', 10, STATELESS_ANCHOR_SECONDS)],
    warmup: false,
    measure: (round, target) =>
      measureHttp(
        target,
        round,
        () => startSupergateway({ bin: SUPERGATEWAY, command: EVERYTHING, stateful: false, core: SERVER_CORE }),
        async () => ({}),
      ),
  },
  {
    part: 'ours',
    key: 'ours-stateful',
    label: 'mcp-auth gateway, stateful, one session, Bearer token',
    modes: [mode('10', 'c=10', 10), mode('64', 'c=64', 64)],
    measure: (round, target) => measureHttp(target, round, startOurs, (url, auth) => openSession(url, auth)),
  },
  {
    part: 'ours',
    key: 'ours-stateless',
    label: `mcp-auth gateway, stateless (${STATELESS_VERSION}): one child for the principal, Bearer token`,
    modes: [mode('10', 'c=10', 10), mode('64', 'c=64', 64)],
    body: STATELESS_ECHO_BODY,
    measure: (round, target) => measureHttp(target, round, startOurs, async (_url, auth) => ({ ...auth, ...STATELESS_HEADERS })),
  },
]

function startOurs() {
  if (!existsSync(CLI)) throw new Error('dist/ not built (npm run build)')
  return startGateway({ cli: CLI, command: [EVERYTHING], core: SERVER_CORE })
}

/**
 * One HTTP target's turn in a round: start it fresh, make the headers wrk sends (`prepare`: a
 * session, or the stateless headers), check one call, warm up, then wrk in each of its modes.
 */
async function measureHttp(target, round, start, prepare) {
  const server = await start()
  try {
    const auth = server.token ? { Authorization: `Bearer ${server.token}` } : {}
    const headers = await prepare(server.url, auth)
    const body = target.body ?? ECHO_BODY
    await checkEcho(server.url, headers, body)
    if (server.token) await checkRefusedWithoutToken(server.url, headers, body)
    const wrk = (connections, seconds) => runWrk({ url: server.url, connections, seconds, core: LOAD_CORE, headers: { ...BASE_HEADERS, ...headers }, body })
    if (target.warmup !== false) await wrk(10, WARMUP_SECONDS)
    const byMode = {}
    for (const m of target.modes) {
      const r = (byMode[m.key] = await wrk(m.connections, m.seconds))
      const failures = r.failed ? `, FAILED: ${r.non2xx} non-2xx, ${r.socketErrors} socket errors` : ''
      console.error(`round ${round} ${target.label} ${m.label}: ${r.rps.toFixed(1)} calls/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${failures}`)
    }
    return byMode
  } finally {
    await server.stop()
  }
}

// Other work on the machine (tests, builds) disturbs single figures; the section says how busy it was.
const loadAverage = () => {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0]
  } catch {
    return 'unknown'
  }
}
const loadAtStart = loadAverage()
const started = Date.now()
const targets = TARGETS.filter((target) => only.includes(target.part))
const measured = targets.length ? await runRounds(targets, ROUNDS, (target, round) => target.measure(round, target)) : { runs: {}, unavailable: {} }
const { runs, unavailable } = measured
let memory
let memoryError
if (only.includes('memory')) {
  try {
    if (!existsSync(CLI)) throw new Error('dist/ not built (npm run build)')
    memory = await measureMemory({ cli: CLI, command: [EVERYTHING], core: SERVER_CORE, sessions: SESSIONS })
  } catch (error) {
    memoryError = error.message.split('\n')[0]
    console.error(`memory: unavailable: ${error.message}`)
  }
}

/** The median of each figure of a target's mode over its rounds (undefined when not measured). */
function cell(key, modeKey) {
  const cells = (runs[key] ?? []).map((byMode) => byMode[modeKey]).filter(Boolean)
  if (!cells.length) return undefined
  return {
    rps: median(cells.map((r) => r.rps)),
    p50: median(cells.map((r) => r.p50)),
    p99: median(cells.map((r) => r.p99)),
    failed: cells.reduce((sum, r) => sum + r.failed, 0),
    each: cells.map((r) => r.rps),
  }
}

const calls = (rps) => (rps >= 100 ? rps.toFixed(0) : rps.toFixed(1))
const table = [
  '| path | load | calls/s (median) | rounds | p50 ms | p99 ms | failed requests |',
  '| --- | --- | ---: | --- | ---: | ---: | ---: |',
  ...TARGETS.flatMap((target) => {
    if (!only.includes(target.part)) return [`| ${target.label} | – | not measured in this run (--only ${only.join(',')}) | | | | |`]
    if (unavailable[target.key]) return [`| ${target.label} | – | unavailable: ${unavailable[target.key].replaceAll('|', '\\|')} | | | | |`]
    return target.modes.map((m) => {
      const r = cell(target.key, m.key)
      const latency = target.key === 'stdio' ? ['–', '–'] : [r.p50.toFixed(2), r.p99.toFixed(2)]
      return `| ${target.label} | ${m.label} | ${calls(r.rps)} | ${r.each.map(calls).join(', ')} | ${latency.join(' | ')} | ${r.failed ? `**${r.failed}**` : 0} |`
    })
  }),
].join('\n')

/** A goal line: the ratio of x's median to y's, PASS/FAIL against `target`, or n/a when a side was not measured. */
function goal(label, x, y, modeKey, target) {
  const a = cell(x, modeKey)
  const b = cell(y, modeKey)
  if (!a || !b) return { line: `| ${label} | n/a (not measured) | – |`, verdict: undefined }
  const ratio = a.rps / b.rps
  const each =
    a.each.length === b.each.length && a.each.length > 1
      ? ` (rounds ${Math.min(...a.each.map((v, i) => v / b.each[i])).toFixed(2)}× to ${Math.max(...a.each.map((v, i) => v / b.each[i])).toFixed(2)}×)`
      : ''
  const verdict = ratio >= target
  return { line: `| ${label} | ${ratio.toFixed(2)}×${each} | ${verdict ? 'PASS' : '**FAIL**'} |`, verdict }
}
const goals = [
  goal('ours stateful / supergateway stateful, c=10, goal ≥ 5×', 'ours-stateful', 'sg-stateful', '10', 5),
  goal('ours stateful / supergateway stateful, c=64, goal ≥ 5×', 'ours-stateful', 'sg-stateful', '64', 5),
  goal('ours stateless / ours stateful, c=10, goal ≥ 0.5×', 'ours-stateless', 'ours-stateful', '10', 0.5),
  goal('ours stateless / ours stateful, c=64, goal ≥ 0.5×', 'ours-stateless', 'ours-stateful', '64', 0.5),
]
const goalTable = ['| goal | ratio of medians | verdict |', '| --- | ---: | --- |', ...goals.map((g) => g.line)].join('\n')

const memoryTable = !only.includes('memory')
  ? ''
  : memory === undefined
    ? `| memory | unavailable: ${memoryError.replaceAll('|', '\\|')} |\n| --- | --- |`
    : [
        '| our gateway | memory |',
        '| --- | ---: |',
        `| RSS with no session (after a full GC) | ${mib(memory.idle)} MiB |`,
        `| RSS with ${memory.opened} idle sessions of ${memory.principals} principals (after a full GC) | ${mib(memory.withSessions)} MiB |`,
        `| per idle session, in the gateway (RSS growth / ${memory.opened}) | ${memory.perSession === undefined ? 'n/a' : `${memory.perSession.toFixed(0)} KiB`} |`,
        `| per child (children's RSS / ${memory.children} children) | ${memory.perChild === undefined ? 'n/a' : `${mib(memory.perChild)} MiB`} |`,
        ...(memory.refused ? [`| **sessions refused: ${memory.opened} of ${SESSIONS} opened** | ${memory.refused.replaceAll('|', '\\|').slice(0, 200)} |`] : []),
        ...(memory.children !== memory.opened ? [`| **children running for ${memory.opened} sessions** | **${memory.children}** |`] : []),
      ].join('\n')

const failedRequests = Object.keys(runs).some((key) => (runs[key] ?? []).some((byMode) => Object.values(byMode).some((r) => r.failed > 0)))
const missing = Object.keys(unavailable).map((key) => TARGETS.find((target) => target.key === key).label)
const warnings = [
  failedRequests ? '**Some requests failed (non-2xx or socket errors): those rows are not clean throughput; see the last column.**' : '',
  missing.length ? `**Not measured: ${missing.join('; ')}; see the table.**` : '',
  memoryError ? '**Memory not measured; see its table.**' : '',
  ...goals.filter((g) => g.verdict === false).map((g) => `**Goal not met: ${g.line.split(' | ')[0].slice(2)}.**`),
].filter(Boolean)
const loadAtEnd = loadAverage()
const loadLine = `Load average (1 min) at the start of the run ${loadAtStart}, at its end ${loadAtEnd}.`
// more runnable processes than cores: something else competed with the measurement
if (Math.max(Number(loadAtStart), Number(loadAtEnd)) > availableParallelism()) {
  warnings.push(`**The machine was busy (load average above its ${availableParallelism()} cores): single figures are disturbed; ratios within this run are what count.**`)
}
printReport([table, goalTable, memoryTable, loadLine], warnings, started)

if (write) {
  const notMeasured = only.length < PARTS.length ? `\nThis run measured ${only.join(', ')} only (\`--only ${only.join(',')}\`); the other rows say so.` : ''
  await writeSection(
    'gateway',
    `## Gateway: a stdio MCP server behind \`mcp-auth gateway\` and behind supergateway (issue 31)

Command: \`npm run bench:gateway\` (builds, then \`node bench/gateway.mjs --seconds ${SECONDS} --rounds ${ROUNDS} --sessions ${SESSIONS}\`; needs Debian's \`wrk\`).${notMeasured}
Every path calls the \`echo\` tool (\`{"message":"hi"}\`, answered "Echo: hi") of \`@modelcontextprotocol/server-everything\`
(\`node_modules/.bin/mcp-server-everything\`, stdio, unmodified). (A) is the child alone: a load process spawns it,
initializes it and keeps 10 \`tools/call\` in flight over its stdin/stdout (raw newline-delimited JSON-RPC, no client
library; \`bench/gateway/stdio-load.mjs\`), for ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up. (B) is supergateway 4.0
(\`supergateway --stdio <server> --outputTransport streamableHttp --port P --logLevel none\`, with \`--stateful\` for
the stateful rows; no authentication; \`--logLevel none\` is the anchor at its fastest): stateful, one session
(initialize and notifications/initialized once, then wrk POSTs the call with \`Mcp-Session-Id\`); stateless (its
default: a new child per request, initialized and ended), c=10 for ${STATELESS_ANCHOR_SECONDS} s. Ours is
\`mcp-auth gateway --port 0 --data-dir <tmp> -- <server>\` with a confidential client added beforehand
(\`mcp-auth clients add\`) and its client_credentials access token for \`<origin>/mcp\`, scope \`mcp\`, sent as
\`Authorization: Bearer\` on every request: stateful, one session as above; stateless, ${STATELESS_VERSION} requests
(no session; \`MCP-Protocol-Version\`, \`Mcp-Method: tools/call\`, \`Mcp-Name: echo\`, the revision and client
capabilities in \`params._meta\`), served by the principal's one long-lived child. Each HTTP target is started
fresh each round, checked with one real call (200 and "Echo: hi"; ours also 401 for the same call without its token), warmed up ${WARMUP_SECONDS} s at c=10 (not the
stateless anchor), then loaded by \`wrk -t1 -c<N> -d${SECONDS}s --latency\` with \`bench/wrk/post.lua\` (the JSON-RPC id
varies per request); calls/s counts 2xx answers only. ${ROUNDS} rounds, the targets interleaved (order rotated
each round); each figure is the median of its rounds, every round's figure beside it.
Memory: a fresh gateway (\`node --inspect=127.0.0.1:0\`, its default caps) and ${Math.ceil(SESSIONS / SESSIONS_PER_PRINCIPAL)} clients, each a principal
with its own token; its VmRSS (\`/proc/<pid>/status\`) with no session, read ${SETTLE_MS / 1000} s after a full GC (HeapProfiler.collectGarbage
through the inspector); then ${SESSIONS} stateful sessions opened, ${SESSIONS_PER_PRINCIPAL} per principal (the default cap of children per principal),
and left idle, each with its own child; the gateway's VmRSS again after a full GC (per idle session: the growth /
sessions opened) and the children's (\`pgrep -P\`, each with what it started; per child: their sum / children).
${pin ? 'The server and every process it starts are pinned to core 1, wrk and the stdio load process to core 0 (taskset).' : 'No taskset: not pinned.'}
${loadLine}
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${goalTable}${memoryTable ? `\n\n${memoryTable}` : ''}`,
  )
}
if (failedRequests || missing.length || memoryError || goals.some((g) => g.verdict === false)) process.exitCode = 1
