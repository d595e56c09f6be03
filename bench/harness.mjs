// Process and load-generator plumbing shared by the HTTP benchmarks: child tracking (nothing
// outlives a run), core pinning with taskset, waiting for "listening on <url>", and running wrk
// with bench/wrk/post.lua, whose done() prints a RESULT line this module parses.
import { spawn, spawnSync } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const POST_LUA = fileURLToPath(new URL('./wrk/post.lua', import.meta.url))
/** The JSON-RPC tools/call (echo "hi") every MCP benchmark sends; {id} varies per request. */
export const TOOLS_CALL_BODY = '{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}'

/** taskset is there on Linux; elsewhere commands run unpinned. */
export const pin = !spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).error
/** [command, args] running `command` on `core` when taskset exists. */
export const pinned = (core, command, args) => (pin ? ['taskset', ['-c', core, command, ...args]] : [command, args])

/** Moves every thread of a running child to `core` (nothing happens without taskset). */
export function pinProcess(child, core) {
  if (pin) spawnSync('taskset', ['-a', '-p', '-c', core, String(child.pid)], { stdio: 'ignore' })
}

const children = new Set()
/** Remembers a child so it is killed if the benchmark exits early. */
export function track(child) {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})
const cleanups = []
/** Runs `cleanup` (e.g. removing temp dirs) when the benchmark is interrupted. */
export const onInterrupt = (cleanup) => cleanups.push(cleanup)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, async () => {
    for (const child of children) child.kill('SIGKILL')
    await Promise.allSettled(cleanups.map((cleanup) => cleanup()))
    process.exit(130)
  })
}

/** Exits with a hint when wrk is missing. */
export function requireWrk(name) {
  if (spawnSync('wrk', ['-v'], { stdio: 'ignore' }).error) {
    console.error(`${name} needs wrk, which is not installed. Install it, then re-run:\n  Debian/Ubuntu: sudo apt-get install -y wrk\n  macOS: brew install wrk`)
    process.exit(2)
  }
}

/**
 * Node options for every server a benchmark starts, from BENCH_SERVER_NODE_ARGS (space-separated),
 * to profile one: BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir /tmp/profiles' (the fixtures
 * exit cleanly on SIGTERM, so the profile is written). NODE_OPTIONS refuses --cpu-prof.
 */
const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)

/** Spawns `node args…` on core 1 and resolves with the child, the URL it prints as "listening on <url>" and what it printed up to there. */
export function startServer(args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = track(spawn(...pinned('1', process.execPath, [...SERVER_NODE_ARGS, ...args]), { stdio: ['ignore', 'pipe', 'inherit'] }))
    const fail = (error) => {
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(error)
    }
    const timer = setTimeout(() => fail(new Error(`did not print "listening on <url>" within ${timeoutMs / 1000} s`)), timeoutMs)
    let out = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      out += chunk
      const match = /listening on (\S+)/.exec(out)
      if (!match) return
      clearTimeout(timer)
      child.stdout.resume()
      resolve({ child, url: match[1], output: out })
    })
    child.once('error', fail)
    child.once('exit', (code, signal) => fail(new Error(`exited (${signal ?? code}) before listening`)))
  })
}

/**
 * Runs `wrk -t1 -c<connections> -d<seconds>s --latency` on `core`, POSTing `body` ({id} replaced
 * per request) with `headers` to `url`. Only 2xx answers count as throughput; failures come beside it.
 * Another wrk `script` (same RESULT line) may take more `env`.
 */
export function runWrk({ url, connections, seconds, headers = {}, body, core = '0', script = POST_LUA, env: extraEnv = {} }) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '--latency', '-s', script, url]
  const env = {
    ...process.env,
    ...extraEnv,
    WRK_BODY: body,
    WRK_HEADERS: Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
  }
  return new Promise((resolve, reject) => {
    const child = track(spawn(...pinned(core, 'wrk', args), { env, stdio: ['ignore', 'pipe', 'pipe'] }))
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (out += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 15) * 1000)
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      const m = /RESULT requests=(\d+) duration_us=(\d+) p50_us=(\d+) p99_us=(\d+) non2xx=(\d+) socket_errors=(\d+)/.exec(out)
      if (!m) return reject(new Error(`wrk ended (${signal ?? code}) without a result:\n${out}`))
      const [requests, duration, p50, p99, non2xx, socketErrors] = m.slice(1).map(Number)
      resolve({ rps: (requests - non2xx) / (duration / 1e6), p50: p50 / 1000, p99: p99 / 1000, failed: non2xx + socketErrors, non2xx, socketErrors })
    })
  })
}

/**
 * The token request the authorization-server benchmarks send: client_credentials for the scope
 * `mcp` of <origin>/mcp, the client in a Basic header (RFC 6749 §2.3.1: id and secret are
 * form-urlencoded before the Basic encoding).
 */
export function clientCredentialsRequest(origin, id, secret) {
  const basic = Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')
  return { authorization: `Basic ${basic}`, body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp', resource: `${origin}/mcp` }).toString() }
}

const FETCH_TIMEOUT_MS = 5_000

/** fetch with a timeout; the status, the body parsed as JSON (undefined when it is not) and its text. */
export async function fetchJson(url, init) {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) })
  const text = await res.text()
  let body
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: res.status, body, text }
}

/** Dynamic registration (RFC 7591) at `issuer` of a confidential client allowed client_credentials only; its token request (clientCredentialsRequest). */
export async function registerClientCredentials(issuer) {
  const { status, body, text } = await fetchJson(`${issuer}/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [], response_types: [] }),
  })
  if (status !== 201 || !body?.client_id || !body?.client_secret) throw new Error(`registration answered ${status}: ${text.slice(0, 200)}`)
  return clientCredentialsRequest(issuer, body.client_id, body.client_secret)
}

/** One real token request of `client` (the one wrk sends), so a misconfigured server fails loudly instead of being measured. */
export async function checkToken(issuer, client) {
  const { status, body, text } = await fetchJson(`${issuer}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', Authorization: client.authorization },
    body: client.body,
  })
  if (status !== 200 || typeof body?.access_token !== 'string') throw new Error(`token request answered ${status}: ${text.slice(0, 200)}`)
}

/** SIGTERM (a server flushes its store), then SIGKILL if `child` has not exited within `timeoutMs`. */
export function stopChild(child, timeoutMs = 5_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

export const median = (numbers) => {
  const sorted = [...numbers].sort((x, y) => x - y)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

// CPU accounting from /proc (Linux only; elsewhere everything is undefined): the server's own CPU
// per request, and how busy every other process was, so a run that shared the machine with
// something else (a test suite, a build) says so instead of passing as a clean figure.
export const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100

/** User + system CPU ticks (all threads) a process used so far. */
export async function ticksOf(pid) {
  try {
    // Fields after the ")" closing the command name: utime and stime are the 12th and 13th.
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return undefined
  }
}

/** Ticks used so far by every process except `ours` (a Set of pids), per pid. */
export async function otherTicks(ours) {
  let entries
  try {
    entries = await readdir('/proc')
  } catch {
    return undefined
  }
  const ticks = new Map()
  await Promise.all(
    entries.map(async (pid) => {
      if (!/^\d+$/.test(pid) || ours.has(Number(pid))) return
      const used = await ticksOf(pid)
      if (used !== undefined) ticks.set(pid, used)
    }),
  )
  return ticks
}

/** Share of one core the other processes used between two otherTicks() readings. */
export function otherShare(before, after, seconds) {
  if (!before || !after) return undefined
  let used = 0
  for (const [pid, ticks] of after) used += ticks - (before.get(pid) ?? 0)
  return used / CLOCK_TICKS / seconds
}

/**
 * The median of every figure of each (server, mode) cell over its runs. `runs[server.key]` is a
 * list of { [mode.key]: wrk result }; failures add up, the busiest other-process share is kept.
 */
export function summarize(servers, modes, runs, unavailable) {
  const results = {}
  for (const server of servers) {
    if (unavailable[server.key]) continue
    results[server.key] = {}
    for (const mode of modes) {
      const cells = runs[server.key].map((byMode) => byMode[mode.key])
      results[server.key][mode.key] = {
        rps: median(cells.map((r) => r.rps)),
        p50: median(cells.map((r) => r.p50)),
        p99: median(cells.map((r) => r.p99)),
        failed: cells.reduce((sum, r) => sum + r.failed, 0),
        others: Math.max(0, ...cells.map((r) => r.others ?? 0)),
        cpuUs: cells.every((r) => r.cpuUs !== undefined) ? median(cells.map((r) => r.cpuUs)) : undefined,
      }
    }
  }
  return results
}

/** The markdown table of summarize()'s results; `cpu` adds the server CPU µs/req column. */
export function resultTable(servers, modes, results, unavailable, { cpu = false } = {}) {
  const head = ['server', 'connections', 'req/s (2xx)', 'p50 ms', 'p99 ms', ...(cpu ? ['server CPU µs/req'] : []), 'non-2xx + socket errors']
  const rows = [`| ${head.join(' | ')} |`, `| --- |${' ---: |'.repeat(head.length - 1)}`]
  for (const server of servers) {
    if (unavailable[server.key]) {
      rows.push(`| ${server.label} | – | unavailable: ${unavailable[server.key].replaceAll('|', '\\|')} |${' |'.repeat(head.length - 3)}`)
      continue
    }
    for (const mode of modes) {
      const r = results[server.key][mode.key]
      const cells = [
        server.label,
        mode.label,
        r.rps.toFixed(0),
        r.p50.toFixed(2),
        r.p99.toFixed(2),
        ...(cpu ? [r.cpuUs === undefined ? 'n/a' : r.cpuUs.toFixed(0)] : []),
        r.failed ? `**${r.failed}**` : 0,
      ]
      rows.push(`| ${cells.join(' | ')} |`)
    }
  }
  return rows.join('\n')
}

/** x's req/s over y's in each run of `mode` (the spread shows how far a verdict stands from noise). */
export function runRatios(runs, x, y, mode) {
  return runs[x]?.length && runs[x].length === runs[y]?.length ? runs[x].map((byMode, i) => byMode[mode].rps / runs[y][i][mode].rps) : []
}

/**
 * Ratio rows for a goal table over `modes`: `row(label, x, y, show, goal)` gives each cell the
 * ratio of x's median req/s to y's. With a `goal`, a judged cell (every mode, or those
 * `goal.judged(mode)` picks) shows `goal.figure` of the ratio (default: the ratio itself), its
 * verdict `goal.met(figure)`, and in brackets the range of the same figure run by run.
 */
export function ratioRows(results, runs, modes) {
  const ratio = (x, y, key) => (results[x] && results[y] ? results[x][key].rps / results[y][key].rps : undefined)
  return (label, x, y, show, goal) => {
    const cells = modes.map((mode) => {
      const kept = ratio(x, y, mode.key)
      if (kept === undefined) return 'n/a'
      if (goal === undefined || goal.judged?.(mode) === false) return show(kept)
      const figure = goal.figure ?? ((value) => value)
      const showRange = goal.showRange ?? show
      const each = runRatios(runs, x, y, mode.key).map(figure)
      const range = each.length > 1 ? ` (${goal.runsWord ?? 'rounds'} ${showRange(Math.min(...each))} to ${showRange(Math.max(...each))})` : ''
      const value = figure(kept)
      return `${show(value)} ${goal.met(value) ? 'met' : '**not met**'}${range}`
    })
    return `| ${label} | ${cells.join(' | ')} |`
  }
}

/** The server's own CPU time per answered request (µs) from two `ticksOf` readings; undefined when unknown. */
export function cpuPerRequest(before, after, answered) {
  return before === undefined || after === undefined || answered === 0 ? undefined : ((after - before) / CLOCK_TICKS / answered) * 1e6
}

/** One measurement's progress line on stderr, with server CPU and other processes' share when measured. */
export function logMeasurement(round, server, mode, r) {
  const cpu = r.cpuUs === undefined ? '' : `, server CPU ${r.cpuUs.toFixed(0)} µs/req`
  const others = r.others === undefined ? '' : `, other processes ${(r.others * 100).toFixed(0)}% of a core`
  const failures = r.failed ? `, FAILED: ${r.non2xx} non-2xx, ${r.socketErrors} socket errors` : ''
  console.error(`round ${round} ${server.label} ${mode.label}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${cpu}${others}${failures}`)
}

/**
 * The warnings every load benchmark prints (failed requests, servers not measured, each server
 * key shown by `name`), and whether the run failed (then the exit code is 1).
 */
export function runWarnings(results, unavailable, name = (key) => key) {
  const failedRequests = Object.values(results).some((byMode) => Object.values(byMode).some((r) => r.failed > 0))
  const missing = Object.keys(unavailable)
  const warnings = [
    failedRequests ? '**Some requests failed (non-2xx or socket errors): those rows are not clean throughput; see the last column.**' : '',
    missing.length ? `**Not measured: ${missing.map(name).join(', ')}; see the table.**` : '',
  ].filter(Boolean)
  return { warnings, failed: failedRequests || missing.length > 0 }
}

/** Print the report blocks (tables), the warnings without markdown emphasis, and the run's length. */
export function printReport(blocks, warnings, started) {
  console.log(blocks.filter(Boolean).join('\n\n'))
  for (const warning of warnings) console.log(`\n${warning.replaceAll('**', '')}`)
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

/**
 * Runs `measure(server, round)` for every server in every round, the order rotated each round
 * so a slow spell of the machine does not land on one server only. A server that fails once is
 * reported unavailable and skipped from then on.
 */
export async function runRounds(servers, rounds, measure) {
  const runs = Object.fromEntries(servers.map((server) => [server.key, []]))
  const unavailable = {}
  for (let round = 1; round <= rounds; round++) {
    const order = servers.map((_, i) => servers[(i + round - 1) % servers.length])
    for (const server of order) {
      if (unavailable[server.key]) continue
      try {
        runs[server.key].push(await measure(server, round))
      } catch (error) {
        unavailable[server.key] = error.message.split('\n')[0]
        console.error(`${server.label}: unavailable: ${error.message}`)
      }
    }
  }
  return { runs, unavailable }
}

/** A command-line number that must be positive (an integer when `integer`), or a clear error. */
export function positiveOption(values, name, { integer = false } = {}) {
  const value = Number(values[name])
  if (!(value > 0) || (integer && !Number.isInteger(value))) {
    throw new Error(`--${name} must be a positive ${integer ? 'integer' : 'number'}, not ${values[name]}`)
  }
  return value
}
