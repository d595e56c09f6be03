// Embedded-store benchmark (issue 30): our authorization server (bench/fixtures/auth-server.mjs,
// every limit raised) on the lowdb store, on Redis and on our in-memory store, each seeded with
// 10^3 to 10^6 records: 8 wrk connections asking for client_credentials tokens (nothing written),
// alone and while one writer registers clients back to back (bench/store-writer.mjs). Per store and
// size: tokens/s and p99 alone and with the writer, writes/s and their latency, the main-thread
// cost of a storage write and the event-loop delay (the fixture's --time-writes), the start-up time
// and the server's RSS; then the issue's goals, judged from those figures. Server on core 1, wrk,
// the writer and redis-server on core 0. Loopback only, temp dirs removed.
// Usage: npm run bench:store [-- --sizes 1000,10000 --stores lowdb,memory --seconds 4 --rounds 3 --no-write]
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hasRedis, startRedis } from './local-servers.mjs'
import { machineLine, writeSection } from './report.mjs'
import {
  checkToken,
  fetchJson,
  median,
  onInterrupt,
  otherShare,
  otherTicks,
  pin,
  pinned,
  positiveOption,
  printReport,
  registerClientCredentials,
  requireWrk,
  runWrk,
  startServer,
  stopChild,
  track,
} from './harness.mjs'
import { readStoreGoals } from './store-goals.mjs'

const ALL_SIZES = [1_000, 10_000, 100_000, 1_000_000]
const ALL_STORES = [
  { key: 'lowdb', label: 'lowdb (embedded)', storage: 'lowdb' },
  { key: 'redis', label: 'Redis', storage: 'redis' },
  // oidc-provider's MemoryAdapter (the fixture's `memory`) is an LRU of 1000 records: useless at 10^6
  { key: 'memory', label: 'in-memory', storage: 'store-memory' },
]
const { values } = parseArgs({
  options: {
    sizes: { type: 'string' },
    stores: { type: 'string' },
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    'no-write': { type: 'boolean' },
  },
})
const SECONDS = positiveOption(values, 'seconds')
const ROUNDS = positiveOption(values, 'rounds', { integer: true })
const SIZES = values.sizes ? values.sizes.split(',').map(Number) : ALL_SIZES
if (SIZES.some((size) => !Number.isInteger(size) || size < 1)) throw new Error(`--sizes takes positive integers, comma separated, not ${values.sizes}`)
const STORES = values.stores ? ALL_STORES.filter((store) => values.stores.split(',').includes(store.key)) : ALL_STORES
if (STORES.length === 0) throw new Error(`--stores picks from ${ALL_STORES.map((store) => store.key).join(',')}`)
// A partial run must not replace the full table in docs/performance.md.
const write = !values['no-write'] && !values.sizes && !values.stores
const CONNECTIONS = 8
const WARMUP_SECONDS = 4
// Other processes busier than this share of one core during a phase get the run flagged.
const QUIET_CPU_SHARE = 0.1
// Seeding 10^6 records, and loading them: generous, yet a store that cannot gets reported, not waited for.
const SEED_TIMEOUT_MS = 300_000
const START_TIMEOUT_MS = 120_000
const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const SERVER = here('./fixtures/auth-server.mjs')
const WRITER = here('./store-writer.mjs')

requireWrk('bench:store')
if (!existsSync(here('../dist/storage/lowdb-storage.js'))) throw new Error('dist/ not built (npm run build)')
const { freePort } = await import(here('../dist/cli/serve.js'))
const cleanups = []
onInterrupt(() => Promise.all(cleanups.map((cleanup) => cleanup())))
const redis = STORES.some((store) => store.storage === 'redis') && hasRedis() ? await startRedis(cleanups, await freePort('127.0.0.1')) : undefined

/** Runs `node args…` pinned to `core` to its end; resolves with its stdout, rejects on a failure or after `timeoutMs`. */
function runNode(core, args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = track(spawn(...pinned(core, process.execPath, args), { stdio: ['ignore', 'pipe', 'pipe'] }))
    let out = ''
    let err = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (err += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve(out)
      else reject(new Error(signal === 'SIGKILL' ? `did not finish within ${timeoutMs / 1000} s` : `exited (${signal ?? code}): ${err.trim().split('\n').at(-1)}`))
    })
  })
}

/** The resident set of process `pid` in bytes (VmRSS of /proc/PID/status); undefined off Linux. */
async function rssOf(pid) {
  try {
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kib === undefined ? undefined : Number(kib) * 1024
  } catch {
    return undefined
  }
}

/** What the files of `dir` hold (the store's, and the few KiB of keys beside them). */
async function bytesIn(dir) {
  const names = await readdir(dir)
  const sizes = await Promise.all(names.map(async (name) => (await stat(join(dir, name))).size))
  return sizes.reduce((sum, size) => sum + size, 0)
}

const seededMs = (output) => Number(/seeded \d+ records in (\d+) ms/.exec(output)?.[1] ?? 0)

/**
 * A server of `store` on `size` seeded records. lowdb and Redis are seeded by a run of the fixture
 * of their own (--seed-only), so the start is timed loading the store only; the in-memory store is
 * seeded in the server's process, and the seeding time it prints is taken off its start.
 */
async function start(store, size, dataDir) {
  const storage = ['--storage', store.storage, '--data-dir', dataDir, ...(store.storage === 'redis' ? ['--redis', redis.url] : [])]
  let seedMs = 0
  if (store.storage !== 'store-memory') seedMs = seededMs(await runNode('1', [SERVER, ...storage, '--seed', String(size), '--seed-only'], SEED_TIMEOUT_MS))
  const spawned = performance.now()
  const { child, url, output } = await startServer([SERVER, ...storage, '--time-writes', ...(store.storage === 'store-memory' ? ['--seed', String(size)] : [])], START_TIMEOUT_MS)
  const inProcessSeedMs = seededMs(output)
  return { child, issuer: url, seedMs: seedMs + inProcessSeedMs, startMs: performance.now() - spawned - inProcessSeedMs }
}

/** The server's write figures since the last call (bench/fixtures/write-timing.mjs). */
async function takeStats(issuer) {
  const { status, body, text } = await fetchJson(`${issuer}/bench/stats`)
  if (status !== 200 || body?.writes === undefined) throw new Error(`GET /bench/stats answered ${status}: ${text.slice(0, 200)}`)
  return body
}

/** One phase: wrk on the token endpoint for SECONDS, with the writer beside it when `writing`. */
async function phase(entry, writing) {
  const ours = new Set([process.pid, entry.child.pid, ...(redis ? [redis.child.pid] : [])])
  await takeStats(entry.issuer)
  const before = await otherTicks(ours)
  // a writer that fails (a registration refused, or slower than harness.mjs's fetch timeout) counts
  // as a failed phase of the writer, not as a store that cannot be measured at all
  const writer = writing
    ? runNode('0', [WRITER, '--issuer', entry.issuer, '--seconds', String(SECONDS)], (SECONDS + 60) * 1000).then(
        (out) => ({ out }),
        (error) => ({ error: error.message, registrations: 0, seconds: SECONDS, latencies: [] }),
      )
    : undefined
  const [wrk, writerOut] = await Promise.all([
    runWrk({
      url: `${entry.issuer}/token`,
      connections: CONNECTIONS,
      seconds: SECONDS,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: entry.client.authorization },
      body: entry.client.body,
    }),
    writer,
  ])
  const others = otherShare(before, await otherTicks(ours), SECONDS)
  const stats = await takeStats(entry.issuer)
  const writes = writerOut === undefined ? undefined : 'error' in writerOut ? writerOut : JSON.parse(writerOut.out.trim().split('\n').at(-1))
  return { wrk, writes, stats, others }
}

const ms = (value) => (value === undefined ? 'n/a' : value < 10 ? value.toFixed(2) : value.toFixed(0))
const percentileOf = (sorted, share) => (sorted.length === 0 ? undefined : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))])
const sortedAll = (lists) => lists.flat().sort((a, b) => a - b)

/** The figures of one store and size from its phases. */
function summarizeCell(cell) {
  const quiet = cell.phases.filter((p) => p.writes === undefined)
  const loaded = cell.phases.filter((p) => p.writes !== undefined)
  const writeCost = sortedAll(loaded.flatMap((p) => Object.values(p.stats.writes).map((kind) => kind.samples)))
  const latencies = sortedAll(loaded.map((p) => p.writes.latencies))
  const registrations = loaded.reduce((sum, p) => sum + p.writes.registrations, 0)
  return {
    quietRps: median(quiet.map((p) => p.wrk.rps)),
    quietP99: median(quiet.map((p) => p.wrk.p99)),
    loadedRps: loaded.length ? median(loaded.map((p) => p.wrk.rps)) : undefined,
    loadedP99: loaded.length ? median(loaded.map((p) => p.wrk.p99)) : undefined,
    writesPerSecond: loaded.length ? median(loaded.map((p) => p.writes.registrations / p.writes.seconds)) : undefined,
    writeP50: percentileOf(latencies, 0.5),
    writeP99: percentileOf(latencies, 0.99),
    costP50: percentileOf(writeCost, 0.5),
    costP99: percentileOf(writeCost, 0.99),
    costMax: writeCost.at(-1),
    storageWritesPerRegistration: registrations ? writeCost.length / registrations : undefined,
    delayP99: loaded.length ? median(loaded.map((p) => p.stats.eventLoop.p99)) : undefined,
    delayMax: loaded.length ? Math.max(...loaded.map((p) => p.stats.eventLoop.max)) : undefined,
    failed: cell.phases.reduce((sum, p) => sum + p.wrk.failed, 0),
    writerFailed: loaded.filter((p) => p.writes.error !== undefined).length,
    diskBytes: cell.diskBytes,
    others: Math.max(0, ...cell.phases.map((p) => p.others ?? 0)),
    startMs: cell.startMs,
    seedMs: cell.seedMs,
    rssStart: cell.rssStart,
    rssEnd: cell.rssEnd,
  }
}

/** Seeds and starts a server, registers wrk's client, warms up, measures quiet and writer phases in turn (quiet first and last), stops it. */
async function measureCell(store, size) {
  const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-bench-store-'))
  const removeDir = () => rm(dataDir, { recursive: true, force: true })
  cleanups.push(removeDir)
  redis?.empty()
  let entry
  try {
    if (store.storage === 'redis' && redis === undefined) throw new Error('redis-server is not installed (apt-get install -y redis-server)')
    const started = await start(store, size, dataDir)
    entry = { ...started, rssStart: await rssOf(started.child.pid), phases: [] }
    console.error(`${store.label}, ${size} records: seeded in ${(entry.seedMs / 1000).toFixed(1)} s, started in ${(entry.startMs / 1000).toFixed(2)} s`)
    entry.client = await registerClientCredentials(entry.issuer)
    await checkToken(entry.issuer, entry.client)
    await runWrk({
      url: `${entry.issuer}/token`,
      connections: CONNECTIONS,
      seconds: WARMUP_SECONDS,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: entry.client.authorization },
      body: entry.client.body,
    })
    for (let round = 1; round <= ROUNDS; round++) {
      for (const writing of [false, true]) {
        const result = await phase(entry, writing)
        entry.phases.push(result)
        const w = result.writes
        const writes = w ? `, ${(w.registrations / w.seconds).toFixed(1)} writes/s` : ''
        const failures = `${result.wrk.failed ? `, FAILED: ${result.wrk.failed}` : ''}${w?.error ? `, WRITER FAILED: ${w.error}` : ''}`
        console.error(`  round ${round} ${writing ? 'with writer' : 'alone'}: ${result.wrk.rps.toFixed(0)} tokens/s, p99 ${ms(result.wrk.p99)} ms${writes}${failures}`)
      }
    }
    const last = await phase(entry, false)
    entry.phases.push(last)
    console.error(`  last, alone: ${last.wrk.rps.toFixed(0)} tokens/s, p99 ${ms(last.wrk.p99)} ms${last.wrk.failed ? `, FAILED: ${last.wrk.failed}` : ''}`)
    entry.rssEnd = await rssOf(entry.child.pid)
    if (store.storage === 'lowdb') entry.diskBytes = await bytesIn(dataDir)
    return summarizeCell(entry)
  } finally {
    if (entry) await stopChild(entry.child)
    await removeDir()
  }
}

const started = Date.now()
const results = {}
const unavailable = {}
const cellKey = (store, size) => `${store.key}:${size}`
for (const [i, size] of SIZES.entries()) {
  // the order of the stores rotates with the size, so a slow spell of the machine does not land on one store only
  const order = STORES.map((_, j) => STORES[(i + j) % STORES.length])
  for (const store of order) {
    try {
      results[cellKey(store, size)] = await measureCell(store, size)
    } catch (error) {
      unavailable[cellKey(store, size)] = error.message.split('\n')[0]
      console.error(`${store.label}, ${size} records: unavailable: ${error.message}`)
    }
  }
}

const mib = (bytes) => (bytes === undefined ? 'n/a' : `${(bytes / 2 ** 20).toFixed(0)}`)
const count = (value) => (value === undefined ? 'n/a' : value.toFixed(0))
const head = [
  'store',
  'records',
  'start s',
  'RSS after start MiB',
  'tokens/s alone',
  'p99 alone ms',
  'tokens/s with writer',
  'p99 with writer ms',
  'writes/s',
  'write p50 / p99 ms',
  'main thread per storage write p50 / p99 / max ms',
  'storage writes per registration',
  'event-loop delay p99 / max ms (writer)',
  'RSS at end MiB',
  'data dir at end MiB',
  'failed token requests / writer phases',
]
const rows = [`| ${head.join(' | ')} |`, `| --- |${' ---: |'.repeat(head.length - 1)}`]
for (const size of SIZES) {
  for (const store of STORES) {
    const key = cellKey(store, size)
    const r = results[key]
    if (r === undefined) {
      rows.push(`| ${store.label} | ${size.toLocaleString('en')} | unavailable: ${(unavailable[key] ?? 'not run').replaceAll('|', '\\|')} |${' |'.repeat(head.length - 3)}`)
      continue
    }
    rows.push(
      `| ${[
        store.label,
        size.toLocaleString('en'),
        (r.startMs / 1000).toFixed(2),
        mib(r.rssStart),
        count(r.quietRps),
        ms(r.quietP99),
        count(r.loadedRps),
        ms(r.loadedP99),
        r.writesPerSecond === undefined ? 'n/a' : r.writesPerSecond.toFixed(1),
        `${ms(r.writeP50)} / ${ms(r.writeP99)}`,
        `${ms(r.costP50)} / ${ms(r.costP99)} / ${ms(r.costMax)}`,
        r.storageWritesPerRegistration === undefined ? 'n/a' : r.storageWritesPerRegistration.toFixed(1),
        `${ms(r.delayP99)} / ${ms(r.delayMax)}`,
        mib(r.rssEnd),
        r.diskBytes === undefined ? '–' : (r.diskBytes / 2 ** 20).toFixed(1),
        r.failed || r.writerFailed ? `**${r.failed} / ${r.writerFailed}**` : '0 / 0',
      ].join(' | ')} |`,
    )
  }
}
const table = rows.join('\n')
const goals = readStoreGoals(STORES, results, unavailable)
const busiest = Math.max(0, ...Object.values(results).map((r) => r.others))
const failedRequests = Object.values(results).some((r) => r.failed > 0 || r.writerFailed > 0)
const warnings = [
  busiest > QUIET_CPU_SHARE
    ? `**Other processes used up to ${(busiest * 100).toFixed(0)}% of a core during a phase: the machine was not quiet, figures may be disturbed; re-run.**`
    : '',
  failedRequests
    ? '**Some token requests or writer phases failed (non-2xx, socket errors, a registration refused or timed out): those rows are not clean; see the last column.**'
    : '',
  Object.keys(unavailable).length ? `**Not measured: ${Object.keys(unavailable).join(', ')}; see the table.**` : '',
].filter(Boolean)
printReport([table, goals.lines.join('\n')], warnings, started)

if (write) {
  await writeSection(
    'store',
    `## The embedded store under writes (issue 30)

Command: \`npm run bench:store\` (builds, then \`node bench/store.mjs --seconds ${SECONDS} --rounds ${ROUNDS}\`; needs Debian's \`wrk\` and \`redis-server\`; about 15 minutes).
Our authorization server as \`mcp-auth auth-server\` runs it (\`bench/fixtures/auth-server.mjs\`, every rate
limit raised out of the way) on three stores: the embedded lowdb store, Redis (a local \`redis-server\`
without persistence, on wrk's core: records and rate limits) and our in-memory store
(\`createMemoryStorage\`, which holds every record: the fixture's \`memory\`, oidc-provider's own
MemoryAdapter, is an LRU of 1000 records and would hold none of the seed at 10^6). Each starts seeded
with ${SIZES.map((size) => size.toLocaleString('en')).join(', ')} records of other users and clients (clients, grants, refresh tokens,
sessions, a quarter each, as oidc-provider writes them), written through the store's own API (then
compacted when the store can); lowdb and Redis are seeded by a run of the fixture of their own, so
the **start** (spawn to "listening", Node's start included) times loading the store; the in-memory store is seeded
in the server's process and that seeding is taken off its start. **Tokens/s** and **p99**: \`wrk -t1
-c${CONNECTIONS} -d${SECONDS}s --latency\` POSTing client_credentials token requests (Basic auth, an ES256 JWT
each, nothing written) after ${WARMUP_SECONDS} s of warm-up; alone, and while **one writer**
(\`bench/store-writer.mjs\`) registers clients back to back (POST /register, one at a time), each
new client used once at once (its first token takes it off the unused-clients list, so no
registration cap interferes). **Writes/s** are its registrations per second, **write p50 / p99**
the latency of its registrations. ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} per store and size on one server: alone, with the
writer, …, alone again; figures are medians over the phases (latency percentiles over every
registration). **Main thread per storage write**: the fixture's \`--time-writes\` times the
synchronous part of every write call of the storage (each adapter's upsert, consume, claim,
create, destroy, revokeByGrantId; the record store's put, create, delete: from the call until it
returns its promise) during the writer phases, every kind pooled; work a store defers to a later
tick is not in it but shows in the **event-loop delay** (\`monitorEventLoopDelay\`: how late a 1 ms
timer fired; p99 the median of the writer phases, max the largest). **RSS**: VmRSS of the server
process after start and after the last phase; **data dir**: the size of the lowdb store's files (and the
few KiB of keys beside them) after the last phase, the server still running. A writer phase fails
when a registration is refused or takes longer than 5 s. ${pin ? 'Server pinned to core 1; wrk, the writer and redis-server to core 0 (taskset).' : 'No taskset: not pinned.'}
Other processes used up to ${(busiest * 100).toFixed(0)}% of a core during a phase.
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

### Reading the figures

${goals.lines.join('\n')}`,
  )
}
process.exitCode = failedRequests || Object.keys(unavailable).length ? 1 : 0
await Promise.all(cleanups.map((cleanup) => cleanup()))
