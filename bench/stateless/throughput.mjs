// Part 1 of bench/stateless.mjs: a 2026-07-28 stateless tools/call (echo) against the bare
// node:http ceiling, the official SDK v2 (createMcpHandler + toNodeHandler on node:http) and ours
// (`mcp-auth demo-server`, /mcp), at c=1 (one core), 10 and 64, with wrk; rounds interleaved,
// medians, goal ratios. Writes the `stateless-http` section of docs/performance.md.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { pin, ratioRows, resultTable, runRounds, runWarnings, summarize } from '../harness.mjs'
import { machineLine, writeSection } from '../report.mjs'
import { busiest, loadNote, measureServer, WARMUP } from './measure-server.mjs'
import { STATELESS_VERSION, verifyCall } from './request.mjs'

const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const CLI = here('../../dist/cli/main.js')

// The columns of bench/http.mjs, for the same reason: at c=1 split across cores one connection
// mostly measures this VM's cross-core wake-up, so c=1 is judged with server and wrk on core 0
// and the split c=1 column is kept for reference, without verdicts.
export const MODES = [
  { key: '1', label: 'c=1 (one core)', connections: 1, serverCore: '0', wrkCore: '0' },
  { key: '10', label: 'c=10', connections: 10, serverCore: '1', wrkCore: '0' },
  { key: '64', label: 'c=64', connections: 64, serverCore: '1', wrkCore: '0' },
  { key: '1-split', label: 'c=1, split cores (reference)', connections: 1, serverCore: '1', wrkCore: '0', reference: true },
]

const SERVERS = [
  { key: 'ceiling', label: '(a) bare node:http ceiling', args: [here('../fixtures/http-ceiling.mjs')] },
  { key: 'sdk', label: '(b) official SDK v2, createMcpHandler + toNodeHandler', args: [here('../fixtures/sdk-v2-stateless.mjs')] },
  { key: 'ours', label: '(c) mcp-auth demo-server, /mcp', args: [CLI, 'demo-server', '--port', '0', '--host', '127.0.0.1'], needs: CLI },
]

async function prepare(server, url) {
  if (server.needs && !existsSync(server.needs)) throw new Error('dist/ not built (npm run build)')
  await verifyCall(url)
  return {}
}

export async function runThroughput({ seconds, rounds, write }) {
  const { runs, unavailable } = await runRounds(SERVERS, rounds, measureServer({ modes: MODES, seconds, prepare }))
  const results = summarize(SERVERS, MODES, runs, unavailable)
  const row = ratioRows(results, runs, MODES)
  const percent = (value) => `${(value * 100).toFixed(0)}%`
  const times = (value) => `${value.toFixed(1)}×`
  const goal = (target, judged) => ({ met: (value) => value >= target, judged })
  const goals = [
    `| goal | ${MODES.map((mode) => mode.label).join(' | ')} |`,
    `| --- |${' ---: |'.repeat(MODES.length)}`,
    row(
      '(c) / (a): ours vs the ceiling, goal ≥ 50% at c=10 and c=64',
      'ours',
      'ceiling',
      percent,
      goal(0.5, (mode) => mode.key === '10' || mode.key === '64'),
    ),
    row(
      '(c) / (b): ours vs SDK v2, goal ≥ 10×',
      'ours',
      'sdk',
      times,
      goal(10, (mode) => !mode.reference),
    ),
    row('(b) / (a): SDK v2 vs the ceiling (no goal)', 'sdk', 'ceiling', percent),
  ].join('\n')
  const table = resultTable(SERVERS, MODES, results, unavailable, { cpu: true })
  const { warnings, failed } = runWarnings(results, unavailable, (key) => SERVERS.find((server) => server.key === key).label)
  const load = loadNote(busiest(runs))
  if (write) {
    await writeSection(
      'stateless-http',
      `## Stateless HTTP (MCP ${STATELESS_VERSION}): tools/call throughput and latency

Command: \`npm run bench:stateless\` (builds, then \`node bench/stateless.mjs --seconds ${seconds} --rounds ${rounds}\`; needs Debian's \`wrk\`).
Every request is a ${STATELESS_VERSION} tools/call of the echo tool with no initialize and no session:
\`MCP-Protocol-Version: ${STATELESS_VERSION}\`, \`Mcp-Method: tools/call\`, \`Mcp-Name: echo\`, and the protocol
version and client capabilities in \`params._meta\` (\`bench/stateless/request.mjs\`; the JSON-RPC id varies
per request). (a) is \`bench/fixtures/http-ceiling.mjs\` (a fixed JSON answer); (b) is the official
SDK v2 (\`@modelcontextprotocol/server\` 2.4.0, \`@modelcontextprotocol/node\` 2.1.2) wired as its docs
wire plain node:http: \`toNodeHandler(createMcpHandler(factory))\`, a fresh \`McpServer\` with one echo
tool per request, default \`auto\` response mode, behind \`localhostHostValidation\` and
\`localhostOriginValidation\` (\`bench/fixtures/sdk-v2-stateless.mjs\`); (c) is \`mcp-auth demo-server
--port 0 --host 127.0.0.1\`, its /mcp endpoint serving ${STATELESS_VERSION} beside the 2025 revisions.
Each server is started fresh, checked with one real call (200, application/json, "hi"),
warmed up for ${WARMUP.seconds} s at c=${WARMUP.connections}, then loaded by \`wrk -t1 -c<N> -d${seconds}s --latency\` with
\`bench/wrk/post.lua\`. req/s counts 2xx answers only; server CPU is the server process's user +
system time (all threads) per answered request. ${rounds} rounds, the servers interleaved (order
rotated each round); every figure is the median of its rounds, and a goal cell gives in brackets
the range of its ratio round by round.
${pin ? 'At c=10 and c=64 the server is pinned to core 1 and wrk to core 0 (taskset); at c=1 both run on core 0, as in the HTTP section (the split c=1 column is for reference, without verdicts).' : 'No taskset: not pinned (the c=1 columns are then the same measurement twice).'}
${load}
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${goals}`,
    )
  }
  return { blocks: [table, goals, load.replaceAll('**', '')], warnings, failed }
}
