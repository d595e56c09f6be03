// Authorization-server benchmark (issue 18): client_credentials token requests per second of bare
// oidc-provider (the anchor: its own MemoryAdapter, one static client, nothing of ours:
// bench/fixtures/bare-provider.mjs) against our authorization server as `mcp-auth auth-server`
// runs it, on oidc-provider's MemoryAdapter behind our storage seam, on our lowdb store, on the
// lowdb store holding 100× the records, and on Redis (when redis-server is installed), in one run,
// with wrk at c=1, 10 and 64, with the server's CPU per token. Ours register their client
// dynamically, so every token request reads it through the storage under test; every security
// feature stays on, rate limits raised out of the way (bench/fixtures/auth-server.mjs). Servers
// pinned to core 1, wrk and redis-server to core 0. Several rounds of fresh servers, several
// interleaved passes each; median per cell. Loopback only, bounded in time (about 9 min), temp
// data dirs removed.
// With --baseline DIR (a checkout of an earlier commit, built: its dist/ and bench/fixtures/), the
// same run also measures that build's lowdb and Redis servers, interleaved with this build's, and
// reports this build / the baseline (no regression: medians within 5%) in a section of its own.
// With --observe, it measures the lowdb server only, with what it reports (issue 33) off, all on
// without access lines, and all on with them (bench/fixtures/observe-mode.mjs), in the same passes.
// Usage: npm run bench:auth [-- --seconds 3 --rounds 4 --passes 2 --scale 100 --no-write --only bare,lowdb --connections 10,64 --baseline DIR | --observe]
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hasRedis, startRedis } from './local-servers.mjs'
import { commitOf, machineLine, writeSection } from './report.mjs'
import {
  checkToken,
  clientCredentialsRequest,
  cpuPerRequest,
  logMeasurement,
  onInterrupt,
  otherShare,
  otherTicks,
  pin,
  positiveOption,
  printReport,
  ratioRows,
  registerClientCredentials,
  requireWrk,
  resultTable,
  runWarnings,
  runWrk,
  startServer,
  stopChild,
  summarize,
  ticksOf,
} from './harness.mjs'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '4' },
    passes: { type: 'string', default: '2' },
    scale: { type: 'string', default: '100' },
    base: { type: 'string', default: '1000' },
    'no-write': { type: 'boolean' },
    only: { type: 'string' },
    connections: { type: 'string' },
    baseline: { type: 'string' },
    observe: { type: 'boolean' },
  },
})
const SECONDS = positiveOption(values, 'seconds')
const ROUNDS = positiveOption(values, 'rounds', { integer: true })
const PASSES = positiveOption(values, 'passes', { integer: true })
// Every store starts with BASE records of other users and clients (clients, grants, refresh
// tokens, sessions, a quarter each: bench/fixtures/auth-server.mjs --seed); the filled store holds
// SCALE times as many.
const SCALE = Number(values.scale)
if (!Number.isInteger(SCALE) || SCALE < 2) throw new Error(`--scale must be an integer ≥ 2, not ${values.scale}`)
const BASE = Number(values.base)
if (!Number.isInteger(BASE) || BASE < 1) throw new Error(`--base must be a positive integer, not ${values.base}`)
const ALL_MODES = [
  { key: '1', label: 'c=1', connections: 1 },
  { key: '10', label: 'c=10', connections: 10 },
  { key: '64', label: 'c=64', connections: 64 },
]
const MODES = values.connections ? ALL_MODES.filter((mode) => values.connections.split(',').includes(mode.key)) : ALL_MODES
if (MODES.length === 0) throw new Error(`--connections picks from ${ALL_MODES.map((mode) => mode.key).join(',')}`)
// A fresh server needs about 4 s at c=10 before its rate settles (JIT): the first 2 s run at half speed.
const WARMUP = { connections: 10, seconds: 5 }
// Other processes busier than this share of one core during a measurement get the run flagged.
const QUIET_CPU_SHARE = 0.1
// Loading a 10^5-record store takes a few seconds.
const START_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 5_000
const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const SERVER = here('./fixtures/auth-server.mjs')
const BARE = here('./fixtures/bare-provider.mjs')
const { version: BARE_VERSION } = JSON.parse(await readFile(fileURLToPath(import.meta.resolve('oidc-provider/package.json')), 'utf8'))
const DEFAULTS = here('../dist/config/defaults.js')

requireWrk('bench:auth')
if (!existsSync(DEFAULTS)) throw new Error('dist/ not built (npm run build)')
// Where createAuthorizationServer keeps the lowdb store in its data dir.
const { defaults } = await import(DEFAULTS)
const DB_FILE = defaults.storage.dbFile
const { inspectEmbeddedStore } = await import(here('../dist/storage/embedded/inspect-store.js'))

const BASELINE = values.baseline === undefined ? undefined : join(values.baseline, 'bench/fixtures/auth-server.mjs')
if (BASELINE !== undefined && !existsSync(join(values.baseline, 'dist/auth/server/create-authorization-server.js')))
  throw new Error(`--baseline ${values.baseline}: no built checkout there (git worktree add DIR <commit>, then npm run build in it)`)
const ourServers = [
  { key: 'bare', label: 'bare oidc-provider 9 (anchor)', storage: 'bare' },
  { key: 'memory', label: 'mcp-auth, oidc-provider MemoryAdapter', storage: 'memory', seed: BASE },
  { key: 'lowdb', label: 'mcp-auth, lowdb store', storage: 'lowdb', seed: BASE },
  { key: 'lowdb-full', label: `mcp-auth, lowdb store, ${SCALE}× records`, storage: 'lowdb', seed: BASE * SCALE },
  { key: 'redis', label: 'mcp-auth, Redis', storage: 'redis', seed: BASE },
]
// The baseline build's servers, beside ours of the same storage (the bare anchor needs none).
const BASELINE_KEYS = ['lowdb', 'redis']
const allServers =
  BASELINE === undefined
    ? ourServers
    : ourServers
        .filter((server) => server.key === 'bare' || BASELINE_KEYS.includes(server.key))
        .flatMap((server) =>
          BASELINE_KEYS.includes(server.key) ? [server, { ...server, key: `${server.key}-baseline`, label: `${server.label} (baseline build)`, fixture: BASELINE }] : [server],
        )
// --observe: the lowdb server with its reporting off, all on (access lines off), all on with access lines
const OBSERVED = {
  off: 'everything off (no trail, no metrics, no spans, no log)',
  on: 'metrics + traces + audit trail + info log, access lines off',
  'on-access': 'all on, access lines at info',
}
const observeServers = Object.entries(OBSERVED).map(([mode, label]) => ({
  key: `observe-${mode}`,
  label: `mcp-auth lowdb, ${label}`,
  storage: 'lowdb',
  seed: BASE,
  args: ['--observe', mode],
}))
const only = values.only?.split(',').map((key) => key.trim())
const candidates = values.observe ? observeServers : allServers
const servers = only ? candidates.filter((server) => only.includes(server.key)) : candidates
// A partial run must not replace the full table in docs/performance.md.
const write = !values['no-write'] && !only && !values.connections && SCALE === 100 && BASE === 1000

const dataDirs = new Set()
const cleanups = [() => Promise.all([...dataDirs].map((dir) => rm(dir, { recursive: true, force: true })))]
onInterrupt(() => Promise.all(cleanups.map((cleanup) => cleanup())))
const { freePort } = await import(here('../dist/cli/serve.js'))
const redis = servers.some((server) => server.storage === 'redis') && hasRedis() ? await startRedis(cleanups, await freePort('127.0.0.1')) : undefined
// The two builds' Redis servers are up at once in a round: each build has a redis-server of its own.
const baselineRedis =
  redis !== undefined && servers.some((server) => server.storage === 'redis' && server.fixture) ? await startRedis(cleanups, await freePort('127.0.0.1')) : undefined
const redisOf = (server) => (server.fixture === undefined ? redis : baselineRedis)

// The bare provider prints its static client (`client <id> <secret>`) before "listening on".
async function start(server, dataDir) {
  if (server.storage === 'bare') {
    const { child, url, output } = await startServer([BARE], START_TIMEOUT_MS)
    const [, id, secret] = /^client (\S+) (\S+)$/m.exec(output) ?? []
    if (id === undefined) throw new Error('the bare provider did not print its client')
    return { child, issuer: url, client: clientCredentialsRequest(url, id, secret) }
  }
  if (server.storage === 'redis') {
    if (redisOf(server) === undefined) throw new Error('redis-server is not installed (apt-get install -y redis-server)')
    redisOf(server).empty()
  }
  const storage = ['--storage', server.storage, ...(server.storage === 'redis' ? ['--redis', redisOf(server).url] : [])]
  const { child, url } = await startServer([server.fixture ?? SERVER, ...storage, '--data-dir', dataDir, '--seed', String(server.seed), ...(server.args ?? [])], START_TIMEOUT_MS)
  return { child, issuer: url }
}

// Records in the embedded store: every oidc-provider model entry plus our own records. Format 2
// (this build: a marker, a snapshot and journals) is read with the build's own read-only
// inspection; format 1 (a baseline build before issue 30: one JSON file) directly.
async function storeSize(dataDir) {
  const file = join(dataDir, DB_FILE)
  const data = JSON.parse(await readFile(file, 'utf8'))
  if (data.version === 2) {
    const store = await inspectEmbeddedStore(file)
    const records = [...Object.values(store.models), ...Object.values(store.collections)].reduce((sum, n) => sum + n, 0)
    return { records, bytes: store.snapshotBytes + store.journalBytes, byModel: store.models }
  }
  const count = (tables) => Object.values(tables ?? {}).reduce((sum, entries) => sum + Object.keys(entries).length, 0)
  const byModel = Object.fromEntries(Object.entries(data.models ?? {}).map(([name, entries]) => [name, Object.keys(entries).length]))
  return { records: count(data.models) + count(data.records), bytes: (await stat(file)).size, byModel }
}

function wrk(url, connections, seconds, client) {
  return runWrk({ url, connections, seconds, headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: client.authorization }, body: client.body })
}

// Starts a server in a fresh data dir (its store seeded), registers the benchmark client,
// checks one token request and warms it up. The server stays up for the passes of its round.
async function prepare(server) {
  const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-bench-'))
  dataDirs.add(dataDir)
  const { child, issuer, client } = await start(server, dataDir)
  const entry = { server, dataDir, child, url: `${issuer}/token` }
  entry.client = client ?? (await registerClientCredentials(issuer))
  await checkToken(issuer, entry.client)
  await wrk(entry.url, WARMUP.connections, WARMUP.seconds, entry.client)
  return entry
}

async function measure({ server, child, url, client }, mode, round) {
  // redis-server works for the Redis server: not another process disturbing the run
  const ours = new Set([process.pid, child.pid, ...(server.storage === 'redis' && redisOf(server) ? [redisOf(server).child.pid] : [])])
  const [before, serverBefore] = await Promise.all([otherTicks(ours), ticksOf(child.pid)])
  const r = await wrk(url, mode.connections, SECONDS, client)
  const [after, serverAfter] = await Promise.all([otherTicks(ours), ticksOf(child.pid)])
  r.others = otherShare(before, after, SECONDS)
  // The server's own CPU per answered request, beside req/s.
  r.cpuUs = cpuPerRequest(serverBefore, serverAfter, r.rps * SECONDS)
  logMeasurement(round, server, mode, r)
  return r
}

// Stops the server (letting it flush), counts its store if it is a lowdb one, removes its data dir.
async function finish({ server, child, dataDir }) {
  try {
    await stopChild(child, STOP_TIMEOUT_MS)
    const store = server.storage === 'lowdb' ? await storeSize(dataDir) : undefined
    if (store) console.error(`${server.label}: store ${store.records} records, ${store.bytes} bytes ${JSON.stringify(store.byModel)}`)
    return store
  } finally {
    child.kill('SIGKILL')
    await rm(dataDir, { recursive: true, force: true })
    dataDirs.delete(dataDir)
  }
}

// Each round starts the three servers afresh (a process's JIT luck persists for its life: one
// unlucky process ran 15% slow in every pass) and keeps them up for PASSES passes that interleave
// them, the order rotated each time, so a slow spell of the machine lands on every server alike
// (the same warm server measured twice a few seconds apart differs by up to ±12% on these VMs).
// Each cell is the median of all its passes.
const started = Date.now()
const runs = Object.fromEntries(servers.map((server) => [server.key, []]))
const unavailable = {}
const stores = {}
const fail = (server, error) => {
  unavailable[server.key] = error.message.split('\n')[0]
  console.error(`${server.label}: unavailable: ${error.message}`)
}
for (let round = 1; round <= ROUNDS; round++) {
  const live = new Map()
  try {
    for (const server of servers) {
      if (unavailable[server.key]) continue
      try {
        live.set(server.key, await prepare(server))
      } catch (error) {
        fail(server, error)
      }
    }
    for (let pass = 1; pass <= PASSES; pass++) {
      const turn = (round - 1) * PASSES + pass - 1
      const order = servers.map((_, i) => servers[(i + turn) % servers.length])
      for (const server of order) {
        const entry = live.get(server.key)
        if (entry === undefined || unavailable[server.key]) continue
        try {
          const byMode = {}
          for (const mode of MODES) byMode[mode.key] = await measure(entry, mode, `${round}.${pass}`)
          runs[server.key].push(byMode)
        } catch (error) {
          fail(server, error)
        }
      }
    }
  } finally {
    for (const [key, entry] of live) {
      const store = await finish(entry)
      if (store) stores[key] = store
    }
  }
}
const results = summarize(servers, MODES, runs, unavailable)
const row = ratioRows(results, runs, MODES)
const percent = (value) => `${(value * 100).toFixed(1)}%`
const passes = { runsWord: 'passes', showRange: (value) => `${(value * 100).toFixed(0)}%` }
const observeGoals = [
  `| goal | ${MODES.map((mode) => mode.label).join(' | ')} |`,
  `| --- |${' ---: |'.repeat(MODES.length)}`,
  row('all on, access lines off / everything off, goal ≥ 95%', 'observe-on', 'observe-off', percent, { ...passes, met: (kept) => kept >= 0.95 }),
  row('all on with access lines / everything off, goal ≥ 90%', 'observe-on-access', 'observe-off', percent, { ...passes, met: (kept) => kept >= 0.9 }),
].join('\n')
const goals = values.observe
  ? observeGoals
  : [
      `| goal | ${MODES.map((mode) => mode.label).join(' | ')} |`,
      `| --- |${' ---: |'.repeat(MODES.length)}`,
      // c=1 is shown, not judged: one request at a time measures latency more than what a server costs
      row('mcp-auth lowdb / bare oidc-provider, goal ≥ 90% (c=10, c=64)', 'lowdb', 'bare', percent, {
        ...passes,
        judged: (mode) => mode.connections > 1,
        met: (kept) => kept >= 0.9,
      }),
      ...(BASELINE === undefined
        ? [
            row('mcp-auth MemoryAdapter / bare oidc-provider', 'memory', 'bare', percent),
            row('mcp-auth Redis / bare oidc-provider', 'redis', 'bare', percent),
            row('lowdb / MemoryAdapter, both mcp-auth (goal ≥ 95%)', 'lowdb', 'memory', percent, { ...passes, met: (kept) => kept >= 0.95 }),
            row(`drop after ${SCALE}× records, goal ≤ 10%`, 'lowdb-full', 'lowdb', percent, { ...passes, figure: (kept) => 1 - kept, met: (drop) => drop <= 0.1 }),
          ]
        : BASELINE_KEYS.map((key) =>
            row(`${key}: this build / baseline build, no regression (≥ 95%)`, key, `${key}-baseline`, percent, { ...passes, met: (kept) => kept >= 0.95 }),
          )),
    ].join('\n')
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`
const storeLine = (key, label) => (stores[key] ? `${label}: ${stores[key].records} records, ${kib(stores[key].bytes)}` : undefined)
const storeLines = [
  storeLine('lowdb', 'Base store after its run'),
  storeLine('lowdb-full', `${SCALE}× store after its run`),
  stores.lowdb && stores['lowdb-full']
    ? `Ratio: ${(stores['lowdb-full'].records / stores.lowdb.records).toFixed(1)}× the records, ${(stores['lowdb-full'].bytes / stores.lowdb.bytes).toFixed(1)}× the bytes`
    : undefined,
].filter(Boolean)
const table = resultTable(servers, MODES, results, unavailable, { cpu: true })
const busiest = Math.max(0, ...Object.values(results).flatMap((byMode) => Object.values(byMode).map((r) => r.others)))
const { warnings: runWarningList, failed } = runWarnings(results, unavailable)
const warnings = [
  busiest > QUIET_CPU_SHARE
    ? `**Other processes used up to ${(busiest * 100).toFixed(0)}% of a core during a measurement: the machine was not quiet, figures may be disturbed; re-run.**`
    : '',
  ...runWarningList,
].filter(Boolean)
printReport([table, goals, storeLines.join('\n')], warnings, started)

if (write && values.observe) {
  await writeSection(
    'observe-auth',
    `## Authorization server with logs, audit, metrics and traces (issue 33)

Command: \`npm run bench:auth -- --observe\`. The workload of the section "Authorization server:
client_credentials token requests" (the lowdb store seeded with ${BASE} records, POST /token with
\`client_credentials\`, an ES256 JWT each), our server only, in three modes of
\`bench/fixtures/observe-mode.mjs\`: everything off (no audit trail, no metrics, no spans, no log),
all on with access lines off (the audit trail in a JSON-lines file with a \`token.issued\` event per
request, metrics, spans through \`@opentelemetry/api\` with no SDK, the log at \`info\` to a file,
which then holds the events' lines), and all on with an access line per request. (The per-principal
limits are the MCP side's: see the protected section.) ${ROUNDS} rounds of fresh servers × ${PASSES}
interleaved passes, the order rotated, medians; in brackets the range pass by pass. The goals
(issue 33): all on, access lines off, at least 95% of everything off; with access lines, at least 90%.
${pin ? 'Servers pinned to core 1, wrk to core 0 (taskset).' : 'No taskset: not pinned.'}
${machineLine()}; build ${commitOf(here('..'))}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${goals}`,
  )
} else if (write && BASELINE !== undefined) {
  await writeSection(
    'auth-regression',
    `## Authorization server: this build against an earlier one (no regression)

Command: \`npm run bench:auth -- --baseline DIR\` (DIR: a built checkout of the earlier commit, e.g.
\`git worktree add DIR <commit> && (cd DIR && ln -s $PWD/node_modules && npm run build)\`). This build: ${commitOf(here('..'))};
baseline: ${commitOf(values.baseline)}. The same method as the section "Authorization server: client_credentials token
requests" (bare oidc-provider ${BARE_VERSION} as the anchor, \`bench/fixtures/auth-server.mjs\` of each build, ${ROUNDS} rounds of
fresh servers × ${PASSES} interleaved passes, the order rotated, medians), with the lowdb and Redis servers of both builds
in every pass. "No regression" is this build's median at least 95% of the baseline's.
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${goals}`,
  )
} else if (write) {
  await writeSection(
    'auth',
    `## Authorization server: client_credentials token requests (issue 18: against bare oidc-provider)

Command: \`npm run bench:auth\` (builds, then \`node bench/auth.mjs --seconds ${SECONDS} --rounds ${ROUNDS} --passes ${PASSES} --base ${BASE} --scale ${SCALE}\`; needs Debian's \`wrk\`, and \`redis-server\` for the Redis row).
The anchor is **bare oidc-provider ${BARE_VERSION}** (\`bench/fixtures/bare-provider.mjs\`): its own MemoryAdapter (no adapter
given), one static \`client_secret_basic\` client, resource indicators with one resource whose
access tokens are ES256 JWTs, nothing of ours. The other servers are our authorization server as
\`mcp-auth auth-server\` runs it (\`bench/fixtures/auth-server.mjs\`: \`createAuthorizationServer\`
behind the CLI's HTTP server, every security feature on, rate limits on and raised out of the way) on
four storages: oidc-provider's MemoryAdapter behind our storage seam, our lowdb store, the lowdb store
holding ${SCALE}× the records, and Redis (a local \`redis-server\` without persistence, on wrk's core:
records and rate limits). Ours register their client dynamically (POST /register), so every token
request reads it through the storage under test; one real token request is checked for an
access_token, then ${WARMUP.seconds} s of warm-up at c=${WARMUP.connections}. Each measurement is \`wrk -t1 -c<N> -d${SECONDS}s --latency\` with
\`bench/wrk/post.lua\` (POST /token, \`grant_type=client_credentials&resource=<issuer>/mcp&scope=mcp\`,
Basic auth; an ES256 JWT access token each). Our stores start seeded with ${BASE} records of other users
and clients (clients, grants, refresh tokens, sessions, a quarter each, as oidc-provider writes
them); the "${SCALE}× records" row starts with ${BASE * SCALE}. JWT access tokens are not stored: a token request
reads the client and writes nothing. req/s counts 2xx answers only; server CPU is the server
process's user + system time (all threads: the ES256 signature runs on libuv's pool) per answered
request (redis-server's own CPU not included). ${ROUNDS} rounds, each starting every server afresh (a process's JIT
luck lasts its life) and measuring them in ${PASSES} interleaved passes, the order rotated each pass;
every figure is the median of its ${ROUNDS * PASSES} passes. Goal figures compare those medians; in brackets, the
range of the same ratio pass by pass. ${pin ? 'Servers pinned to core 1, wrk and redis-server to core 0 (taskset).' : 'No taskset: not pinned.'}
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${goals}

${storeLines.join('.\n')}.`,
  )
}
if (failed) process.exitCode = 1
await Promise.all(cleanups.map((cleanup) => cleanup()))
