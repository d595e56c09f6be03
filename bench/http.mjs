// HTTP benchmark: tools/call throughput and p50/p99 at concurrency 1, 10, 64 for a bare node:http
// ceiling, the official SDK (stateless JSON; stateful SSE) and ours (stateless; stateful), in one
// run, with wrk. Server pinned to core 1, wrk to core 0. Loopback only, bounded in time.
// Usage: npm run bench:http [-- --seconds 5 --no-write]
import { execFileSync, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { machineLine, writeSection } from './report.mjs'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, 'no-write': { type: 'boolean' } } })
const SECONDS = Number(values.seconds)
const CONCURRENCY = [1, 10, 64]
const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const CLI = here('../dist/cli/main.js')
const LUA = here('./wrk/tools-call.lua')

function has(command, args) {
  try {
    execFileSync(command, args, { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
if (!has('wrk', ['--version']) && !has('sh', ['-c', 'command -v wrk'])) {
  console.error('wrk is not installed: apt-get install -y wrk')
  process.exit(2)
}
const pin = has('taskset', ['-c', '0', 'true'])

const servers = [
  { key: 'a', label: '(a) bare node:http ceiling', args: [here('./fixtures/http-ceiling.mjs')], path: '/mcp', stateful: false },
  { key: 'b', label: '(b) official SDK, stateless JSON', args: [here('./fixtures/sdk-http-stateless.mjs')], path: '/mcp', stateful: false },
  { key: 'c', label: '(c) mcp-auth, stateless JSON', args: [CLI, 'demo-server', '--port', '0', '--stateless', '--json'], path: '/mcp', stateful: false },
  { key: 'd', label: '(d) official SDK, stateful, SSE answers', args: [here('./fixtures/sdk-http-stateful.mjs')], path: '/mcp', stateful: true },
  { key: 'e', label: '(e) mcp-auth, stateful, SSE answers', args: [CLI, 'demo-server', '--port', '0'], path: '/mcp', stateful: true },
]

const children = new Set()
const killAll = () => {
  for (const child of children) child.kill('SIGKILL')
}
process.on('exit', killAll)
process.on('SIGINT', () => process.exit(130))

function start(server) {
  return new Promise((resolve, reject) => {
    const [command, args] = pin ? ['taskset', ['-c', '1', process.execPath, ...server.args]] : [process.execPath, server.args]
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    children.add(child)
    const timer = setTimeout(() => reject(new Error(`${server.label} did not start`)), 10_000)
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
      const match = /listening on (\S+)/.exec(out)
      if (match) {
        clearTimeout(timer)
        resolve({ child, url: `${match[1]}${server.path}` })
      }
    })
    child.once('exit', (code) => reject(new Error(`${server.label} exited with ${code}`)))
  })
}

const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' }

async function openSession(url) {
  const init = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  })
  const sessionId = init.headers.get('mcp-session-id')
  await init.text()
  if (!sessionId) throw new Error(`no Mcp-Session-Id from ${url}`)
  const initialized = await fetch(url, { method: 'POST', headers: { ...HEADERS, 'Mcp-Session-Id': sessionId }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  await initialized.text()
  return sessionId
}

async function verify(url, sessionId) {
  const res = await fetch(url, {
    method: 'POST',
    headers: sessionId ? { ...HEADERS, 'Mcp-Session-Id': sessionId } : HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }),
  })
  const text = await res.text()
  if (res.status !== 200 || !text.includes('"text":"hi"')) throw new Error(`a tools/call to ${url} answered ${res.status}: ${text.slice(0, 200)}`)
}

function wrk(url, connections, seconds, sessionId) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', LUA, url]
  const [command, fullArgs] = pin ? ['taskset', ['-c', '0', 'wrk', ...args]] : ['wrk', args]
  const out = execFileSync(command, fullArgs, { env: { ...process.env, MCP_SESSION_ID: sessionId ?? '' }, encoding: 'utf8', timeout: (seconds + 30) * 1000 })
  const m = /RESULT requests=(\d+) duration_us=(\d+) p50_us=(\d+) p99_us=(\d+) non200=(\d+) socket_errors=(\d+)/.exec(out)
  if (!m) throw new Error(`could not read wrk output:\n${out}`)
  const [requests, duration, p50, p99, non200, errors] = m.slice(1).map(Number)
  return { rps: requests / (duration / 1e6), p50: p50 / 1000, p99: p99 / 1000, non200, errors }
}

const started = Date.now()
const results = {}
for (const server of servers) {
  const { child, url } = await start(server)
  try {
    const sessionId = server.stateful ? await openSession(url) : undefined
    await verify(url, sessionId)
    wrk(url, 10, 2, sessionId) // warm-up
    results[server.key] = {}
    for (const c of CONCURRENCY) {
      results[server.key][c] = wrk(url, c, SECONDS, sessionId)
      const r = results[server.key][c]
      console.error(`${server.label} c=${c}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${r.non200 || r.errors ? `, ${r.non200} non-200, ${r.errors} socket errors` : ''}`)
    }
  } finally {
    child.kill('SIGKILL')
    children.delete(child)
  }
}

const rows = ['| server | c | req/s | p50 ms | p99 ms | non-200 |', '| --- | ---: | ---: | ---: | ---: | ---: |']
for (const server of servers) {
  for (const c of CONCURRENCY) {
    const r = results[server.key][c]
    rows.push(`| ${server.label} | ${c} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.non200 + r.errors} |`)
  }
}
const ratio = (x, y, c) => results[x][c].rps / results[y][c].rps
const goals = [
  '| goal | c=1 | c=10 | c=64 |',
  '| --- | ---: | ---: | ---: |',
  `| (c) / (a): ours stateless vs ceiling, goal ≥ 50% | ${CONCURRENCY.map((c) => `${(ratio('c', 'a', c) * 100).toFixed(0)}%`).join(' | ')} |`,
  `| (e) / (d): ours stateful vs SDK stateful, goal ≥ 3× | ${CONCURRENCY.map((c) => `${ratio('e', 'd', c).toFixed(2)}×`).join(' | ')} |`,
  `| (c) / (b): ours stateless vs SDK stateless | ${CONCURRENCY.map((c) => `${ratio('c', 'b', c).toFixed(2)}×`).join(' | ')} |`,
].join('\n')
const table = rows.join('\n')
console.log(table)
console.log()
console.log(goals)
console.error(`total ${((Date.now() - started) / 1000).toFixed(0)} s`)
const flagged = Object.values(results).some((byC) => Object.values(byC).some((r) => r.non200 + r.errors > 0))
if (!values['no-write']) {
  await writeSection(
    'http',
    `## HTTP: tools/call throughput and latency

Command: \`npm run bench:http\` (builds, then \`node bench/http.mjs --seconds ${SECONDS}\`; needs Debian's \`wrk\`).
Each server is started fresh, checked with one real tools/call, warmed up for 2 s, then loaded by
\`wrk -t1 -c<N> -d${SECONDS}s\` with \`bench/wrk/tools-call.lua\` (echo tool, JSON-RPC id varies per
request). Stateful servers get one session opened first; every request carries its
Mcp-Session-Id. ${pin ? 'Server pinned to core 1, wrk to core 0 (taskset).' : 'No taskset: not pinned.'}
${machineLine()}.${flagged ? '\n\n**Some requests failed (non-200 or socket errors): see the table.**' : ''}

${table}

${goals}`,
  )
}
