// Part 3 of bench/stateless.mjs: the server's resident memory while it holds N idle streams,
// opened by a separate load process (open-streams.mjs): (i) ours with N 2025-11-25 sessions, each
// with its GET SSE stream open; (ii) ours with N open 2026-07-28 subscriptions/listen streams;
// (iii) a bare node:http server holding N idle SSE responses. VmRSS of the server from
// /proc/<pid>/status once all are open and idle, then again after a forced full GC (the fixtures
// run with --expose-gc and collect on GET /bench/stats?gc=1), then everything is closed.
// Writes the `stateless-memory` section of docs/performance.md.
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { pinned, startServer, track } from '../harness.mjs'
import { machineLine, writeSection } from '../report.mjs'

const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const START_TIMEOUT_MS = 10_000
const SETTLE_MS = 3_000
const CLOSE_TIMEOUT_MS = 20_000
const GOAL_MIB = 200
const CONCURRENCY = 64

const SCENARIOS = [
  {
    key: 'sessions',
    label: '(i) ours, 2025-11-25 sessions, each with its GET SSE stream open',
    fixture: here('../fixtures/ours-raised-caps.mjs'),
    path: '/mcp',
    kind: 'session-get',
    held: (stats) => stats.sessions,
  },
  {
    key: 'listen',
    label: '(ii) ours, 2026-07-28 subscriptions/listen streams',
    fixture: here('../fixtures/ours-raised-caps.mjs'),
    path: '/mcp',
    kind: 'listen',
    held: (stats) => stats.listenStreams,
  },
  { key: 'ceiling', label: '(iii) bare node:http, idle SSE responses', fixture: here('../fixtures/sse-ceiling.mjs'), path: '/sse', kind: 'get', held: (stats) => stats.streams },
]

/** VmRSS and VmHWM of a process, in KiB. */
async function memoryOf(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1])
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') }
}

const stats = async (origin, gc = false) => (await fetch(new URL(`/bench/stats${gc ? '?gc=1' : ''}`, origin), { signal: AbortSignal.timeout(10_000) })).json()
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Spawns the load process on core 0; resolves with it once it prints "open <n> in <ms> ms". */
function openStreams(url, kind, count, timeoutMs) {
  const args = [here('./open-streams.mjs'), '--url', url, '--kind', kind, '--count', String(count), '--concurrency', String(CONCURRENCY)]
  const child = track(spawn(...pinned('0', process.execPath, args), { stdio: ['pipe', 'pipe', 'inherit'] }))
  return new Promise((resolve, rejectWith) => {
    const reject = (error) => {
      child.kill('SIGKILL')
      rejectWith(error)
    }
    const timer = setTimeout(() => reject(new Error(`the load process did not open ${count} streams within ${timeoutMs / 1000} s`)), timeoutMs)
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk
      const open = /^open (\d+) in (\d+) ms$/m.exec(out)
      const error = /^error (.*)$/m.exec(out)
      if (error) {
        clearTimeout(timer)
        reject(new Error(`load process: ${error[1]}`))
      } else if (open) {
        clearTimeout(timer)
        child.off('exit', onExit)
        resolve({ child, opened: Number(open[1]), openMs: Number(open[2]) })
      }
    })
    const onExit = (code, signal) => {
      clearTimeout(timer)
      rejectWith(new Error(`the load process exited (${signal ?? code}) before all streams were open:\n${out.slice(-500)}`))
    }
    child.once('exit', onExit)
  })
}

/** Closes the load process's stdin (it then destroys every socket) and waits for it to end. */
function closeStreams(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill('SIGKILL'), CLOSE_TIMEOUT_MS)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.stdin.end()
  })
}

async function measure(scenario, count, openTimeoutMs) {
  const { child: server, url: origin } = await startServer(['--expose-gc', scenario.fixture], START_TIMEOUT_MS)
  let load
  try {
    await stats(origin, true)
    await delay(1_000)
    const start = await memoryOf(server.pid)
    const opened = await openStreams(new URL(scenario.path, origin).href, scenario.kind, count, openTimeoutMs)
    load = opened.child
    await delay(SETTLE_MS)
    const open = await memoryOf(server.pid)
    const held = scenario.held(await stats(origin))
    if (held !== count) throw new Error(`the server holds ${held}, not ${count}`)
    const collected = await stats(origin, true)
    const afterGc = await memoryOf(server.pid)
    const r = {
      start: start.rss,
      rss: open.rss,
      hwm: open.hwm,
      rssAfterGc: afterGc.rss,
      heapUsedAfterGc: collected.memory.heapUsed / 1024,
      collected: collected.collected,
      openMs: opened.openMs,
      held,
    }
    console.error(
      `${scenario.label}: ${held} open in ${r.openMs} ms; RSS ${mib(r.start)} → ${mib(r.rss)} MiB (peak ${mib(r.hwm)}), after GC ${mib(r.rssAfterGc)} MiB, heap used ${mib(r.heapUsedAfterGc)} MiB`,
    )
    return r
  } finally {
    if (load) await closeStreams(load)
    server.kill('SIGKILL')
  }
}

const mib = (kib) => (kib / 1024).toFixed(0)

export async function runMemory({ count, write }) {
  // about 5k streams a second on this machine; ten times that, plus a margin, before giving up
  const openTimeoutMs = Math.max(60_000, count * 2)
  const results = {}
  const unavailable = {}
  for (const scenario of SCENARIOS) {
    try {
      results[scenario.key] = await measure(scenario, count, openTimeoutMs)
    } catch (error) {
      unavailable[scenario.key] = error.message.split('\n')[0]
      console.error(`${scenario.label}: unavailable: ${error.message}`)
    }
  }
  const n = count.toLocaleString('en-US')
  const rows = [
    `| server holding ${n} idle streams | RSS at start, MiB | RSS with all open, MiB (goal < ${GOAL_MIB}) | peak RSS, MiB | RSS after a full GC, MiB | V8 heap used after GC, MiB | RSS per stream, KiB | time to open all |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...SCENARIOS.map((scenario) => {
      const r = results[scenario.key]
      if (!r) return `| ${scenario.label} | unavailable: ${unavailable[scenario.key].replaceAll('|', '\\|')} | | | | | | |`
      const verdict = r.rss / 1024 < GOAL_MIB ? 'met' : '**not met**'
      return `| ${scenario.label} | ${mib(r.start)} | ${mib(r.rss)} ${verdict} | ${mib(r.hwm)} | ${mib(r.rssAfterGc)} | ${mib(r.heapUsedAfterGc)} | ${((r.rss - r.start) / count).toFixed(1)} | ${(r.openMs / 1000).toFixed(1)} s |`
    }),
  ].join('\n')
  const missing = Object.keys(unavailable)
  const warnings = missing.length ? [`**Not measured: ${missing.join(', ')}; see the table.**`] : []
  if (write) {
    await writeSection(
      'stateless-memory',
      `## Memory: ${n} idle streams

Command: \`npm run bench:stateless\` (builds, then \`node bench/stateless.mjs --streams ${count}\`).
Each server is started fresh (\`node --expose-gc\`, pinned to core 1) and a separate load process
(\`bench/stateless/open-streams.mjs\`, core 0, ${CONCURRENCY} opening at a time, one socket per held stream)
opens ${n} streams and keeps them idle: (i) per stream a 2025-11-25 session (initialize and
notifications/initialized on pooled keep-alive sockets, closed once all are open) and its GET SSE
stream, held from its 200 headers; (ii) a 2026-07-28 \`subscriptions/listen\` POST, held from its
\`notifications/subscriptions/acknowledged\` event; (iii) a GET to a bare node:http server that
answers 200 text/event-stream with one event and keeps the response open (\`bench/fixtures/sse-ceiling.mjs\`;
no keep-alive comments, no state but a Set entry). Ours is the demo server through
\`createMcpHttpApp\` as \`mcp-auth demo-server\` serves it, with the session and listen caps raised
to 20,000 in all and per principal (\`bench/fixtures/ours-raised-caps.mjs\`): without auth the
principal is the client address, and one load process would hit the per-principal caps (32) at
once. ${SETTLE_MS / 1000} s after the last stream opened, the server's VmRSS is read from \`/proc/<pid>/status\`, and
the server is asked (GET /bench/stats) how many sessions or streams it holds (must be ${n}); then a
full GC is forced and VmRSS read again, which tells memory held from garbage not yet collected.
"RSS at start" is read after a forced GC before any stream; "per stream" is (RSS with all open −
RSS at start) / ${n}. The goal is judged on the RSS with all open, before the forced GC.
MiB = 1024 × 1024 bytes. One measurement per server (memory does not move like throughput does).
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${rows}`,
    )
  }
  return { blocks: [rows], warnings, failed: missing.length > 0 }
}
