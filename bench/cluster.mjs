// Storage and cluster benchmark (issue 16): the main job of `mcp-auth start` on our in-memory
// store (the anchor), on the lowdb file and on Redis, one node each, in one run: client_credentials
// token requests, and a protected stateful tools/call (an ES256 JWT, a 2025-11-25 session), with
// wrk. Then the Redis node alone versus two Redis nodes behind HAProxy (round robin), and one node
// behind the same HAProxy to show what the proxy itself costs. Nodes pinned to core 1, wrk (and
// HAProxy, and redis-server) to core 0; on a 2-core machine two nodes share one core, so the pair
// shows the price of the extra hop and process, not scaling. Loopback only, bounded in time
// (about 8 min), temp dirs removed.
// With --baseline DIR (a built checkout of an earlier commit), each part measures that build's nodes
// beside this build's, interleaved in every round, and reports this build / the baseline (no
// regression: medians within 5%) in sections of their own.
// Usage: npm run bench:cluster [-- --seconds 3 --rounds 5 --no-write --only storage|cluster --baseline DIR]
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hasRedis, listening, startChild, startRedis } from './local-servers.mjs'
import { commitOf, machineLine, writeSection } from './report.mjs'
import {
  TOOLS_CALL_BODY,
  clientCredentialsRequest,
  cpuPerRequest,
  logMeasurement,
  onInterrupt,
  otherShare,
  otherTicks,
  positiveOption,
  printReport,
  ratioRows,
  requireWrk,
  resultTable,
  runWarnings,
  runWrk,
  startServer,
  summarize,
  ticksOf,
} from './harness.mjs'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '5' },
    'no-write': { type: 'boolean' },
    only: { type: 'string' },
    baseline: { type: 'string' },
  },
})
const SECONDS = positiveOption(values, 'seconds')
const ROUNDS = positiveOption(values, 'rounds', { integer: true })
const parts = values.only ? values.only.split(',') : ['storage', 'cluster']
const write = !values['no-write'] && !values.only
const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const NODE = here('./fixtures/cluster-node.mjs')
const BASELINE_NODE = values.baseline === undefined ? undefined : join(values.baseline, 'bench/fixtures/cluster-node.mjs')
if (values.baseline !== undefined && !existsSync(join(values.baseline, 'dist/app/main-job.js')))
  throw new Error(`--baseline ${values.baseline}: no built checkout there (git worktree add DIR <commit>, then npm run build in it)`)
const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((path) => existsSync(path))
const MODES = [
  { key: '10', label: 'c=10', connections: 10 },
  { key: '64', label: 'c=64', connections: 64 },
]
const WARMUP_SECONDS = 4
const START_TIMEOUT_MS = 30_000
const FETCH_TIMEOUT_MS = 5_000
const PROTOCOL = '2025-11-25'

requireWrk('bench:cluster')
if (!existsSync(here('../dist/app/main-job.js'))) throw new Error('dist/ not built (npm run build)')
// the CLI's own free-port probe (loopback)
const { freePort: freePortOn } = await import(here('../dist/cli/serve.js'))
const freePort = () => freePortOn('127.0.0.1')
if (!hasRedis()) throw new Error('bench:cluster needs redis-server (apt-get install -y redis-server)')
if (parts.includes('cluster') && HAPROXY === undefined) throw new Error('bench:cluster needs haproxy (apt-get install -y haproxy)')

const cleanups = []
onInterrupt(() => Promise.all(cleanups.map((cleanup) => cleanup())))

// Redis without persistence, on wrk's core.
const redis = await startRedis(cleanups, await freePort())
const REDIS_URL = redis.url

async function freshDataDir() {
  const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-bench-node-'))
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }))
  return dataDir
}

async function startNode(storage, extra = [], dataDir = undefined, fixture = NODE) {
  dataDir ??= await freshDataDir()
  const args = [fixture, '--storage', storage, '--data-dir', dataDir, ...(storage === 'redis' ? ['--redis', REDIS_URL] : []), ...extra]
  const { child, url } = await startServer(args, START_TIMEOUT_MS)
  cleanups.push(async () => child.kill('SIGKILL'))
  return { child, url, dataDir }
}

const fetchJson = async (url, init) => {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text }
}

/** A client_credentials client, its token request (what wrk sends) checked once, and an MCP session opened with its token. */
async function prepare(publicOrigin) {
  const registered = await fetchJson(`${publicOrigin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [], response_types: [], scope: 'mcp' }),
  })
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}: ${registered.text.slice(0, 200)}`)
  const client = JSON.parse(registered.text)
  const { authorization, body: tokenBody } = clientCredentialsRequest(publicOrigin, client.client_id, client.client_secret)
  const tokenHeaders = { 'content-type': 'application/x-www-form-urlencoded', authorization }
  const token = await fetchJson(`${publicOrigin}/token`, { method: 'POST', headers: tokenHeaders, body: tokenBody })
  if (token.status !== 200) throw new Error(`token request answered ${token.status}: ${token.text.slice(0, 200)}`)
  const accessToken = JSON.parse(token.text).access_token
  const mcpHeaders = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': PROTOCOL }
  const init = await fetchJson(`${publicOrigin}/mcp`, {
    method: 'POST',
    headers: mcpHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  })
  const sessionId = init.headers.get('mcp-session-id')
  if (init.status !== 200 || !sessionId) throw new Error(`initialize answered ${init.status}: ${init.text.slice(0, 200)}`)
  const sessionHeaders = { ...mcpHeaders, 'mcp-session-id': sessionId }
  await fetchJson(`${publicOrigin}/mcp`, { method: 'POST', headers: sessionHeaders, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })
  const call = await fetchJson(`${publicOrigin}/mcp`, { method: 'POST', headers: sessionHeaders, body: TOOLS_CALL_BODY.replace('{id}', '1') })
  if (call.status !== 200 || !call.text.includes('"result"')) throw new Error(`tools/call answered ${call.status}: ${call.text.slice(0, 200)}`)
  return {
    token: { headers: tokenHeaders, body: tokenBody },
    call: { headers: sessionHeaders, body: TOOLS_CALL_BODY },
  }
}

const WORKLOADS = [
  { key: 'token', label: 'token (client_credentials)', path: '/token' },
  { key: 'call', label: 'tools/call (stateful, bearer)', path: '/mcp' },
]

async function measure(entry, workload, mode, round, pids) {
  const request = entry.requests[workload.key]
  const ours = new Set([process.pid, ...pids])
  const [before, serverBefore] = await Promise.all([otherTicks(ours), Promise.all(entry.children.map((child) => ticksOf(child.pid)))])
  const r = await runWrk({ url: `${entry.target}${workload.path}`, connections: mode.connections, seconds: SECONDS, headers: request.headers, body: request.body })
  const [after, serverAfter] = await Promise.all([otherTicks(ours), Promise.all(entry.children.map((child) => ticksOf(child.pid)))])
  r.others = otherShare(before, after, SECONDS)
  const sum = (ticks) => (ticks.some((tick) => tick === undefined) ? undefined : ticks.reduce((a, b) => a + b, 0))
  r.cpuUs = cpuPerRequest(sum(serverBefore), sum(serverAfter), r.rps * SECONDS)
  logMeasurement(round, { label: `${entry.label}, ${workload.label}` }, mode, r)
  return r
}

async function warm(entry) {
  for (const workload of WORKLOADS) {
    const request = entry.requests[workload.key]
    await runWrk({ url: `${entry.target}${workload.path}`, connections: 10, seconds: WARMUP_SECONDS / 2, headers: request.headers, body: request.body })
  }
}

/** Rounds of fresh setups, each measured on both workloads and every mode, the order rotated; median per cell. */
async function runPart(setups) {
  const servers = setups.flatMap((setup) => WORKLOADS.map((workload) => ({ key: `${setup.key}:${workload.key}`, label: `${setup.label}, ${workload.label}` })))
  const runs = Object.fromEntries(servers.map((server) => [server.key, []]))
  const unavailable = {}
  for (let round = 1; round <= ROUNDS; round++) {
    const order = setups.map((_, i) => setups[(i + round - 1) % setups.length])
    for (const setup of order) {
      if (WORKLOADS.every((workload) => unavailable[`${setup.key}:${workload.key}`])) continue
      let entry
      try {
        entry = await setup.start()
        entry.label = setup.label
        entry.requests = await prepare(entry.publicOrigin)
        await warm(entry)
        for (const workload of WORKLOADS) {
          const byMode = {}
          for (const mode of MODES)
            byMode[mode.key] = await measure(entry, workload, mode, round, [
              ...entry.children.map((child) => child.pid),
              redis.child.pid,
              ...(entry.proxy ? [entry.proxy.pid] : []),
            ])
          runs[`${setup.key}:${workload.key}`].push(byMode)
        }
      } catch (error) {
        for (const workload of WORKLOADS) unavailable[`${setup.key}:${workload.key}`] = error.message.split('\n')[0]
        console.error(`${setup.label}: unavailable: ${error.message}`)
      } finally {
        await entry?.stop()
      }
    }
  }
  return { servers, runs, unavailable }
}

function single(storage, label, fixture = NODE, key = storage) {
  return {
    key,
    label,
    async start() {
      if (storage === 'redis') redis.empty()
      const node = await startNode(storage, [], undefined, fixture)
      return { children: [node.child], target: node.url, publicOrigin: node.url, stop: async () => stopAll([node.child]) }
    },
  }
}

async function stopAll(children, proxy) {
  await Promise.all(
    [...children, ...(proxy ? [proxy] : [])].map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
          child.once('exit', () => {
            clearTimeout(timer)
            resolve()
          })
          child.kill('SIGTERM')
        }),
    ),
  )
}

/** `count` Redis nodes behind a fresh HAProxy (round robin, health checks), the public origin being the proxy's. */
function behindProxy(count, key, label, fixture = NODE) {
  return {
    key,
    label,
    async start() {
      const proxyPort = await freePort()
      const origin = `http://localhost:${proxyPort}`
      const ports = await Promise.all(Array.from({ length: count }, () => freePort()))
      redis.empty()
      // the nodes of one deployment share their keys: one data directory
      const dataDir = await freshDataDir()
      const nodes = await Promise.all(ports.map((port) => startNode('redis', ['--port', String(port), '--issuer', origin], dataDir, fixture)))
      const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-bench-haproxy-'))
      cleanups.push(() => rm(dir, { recursive: true, force: true }))
      const config = join(dir, 'haproxy.cfg')
      await writeFile(
        config,
        [
          'global',
          '    maxconn 4000',
          'defaults',
          '    mode http',
          '    timeout connect 2s',
          '    timeout client 60s',
          '    timeout server 60s',
          'frontend mcp',
          `    bind 127.0.0.1:${proxyPort}`,
          '    http-request set-header X-Forwarded-Proto http',
          '    http-request set-header X-Forwarded-Host %[req.hdr(host)]',
          '    option forwardfor',
          '    default_backend nodes',
          'backend nodes',
          '    balance roundrobin',
          '    option httpchk GET /healthz',
          ...ports.map((port, i) => `    server n${i} 127.0.0.1:${port} check inter 1s`),
          '',
        ].join('\n'),
      )
      const proxy = await startChild(cleanups, '0', HAPROXY, ['-f', config, '-db'], listening(proxyPort))
      // wrk names the proxy by localhost: the Host every node expects (the issuer's)
      return {
        children: nodes.map((node) => node.child),
        proxy,
        target: origin,
        publicOrigin: origin,
        stop: async () =>
          stopAll(
            nodes.map((node) => node.child),
            proxy,
          ),
      }
    },
  }
}

const started = Date.now()
const blocks = []
const allWarnings = []
let failed = false
const percent = (value) => `${(value * 100).toFixed(0)}%`

/** This build's setup and the baseline build's, one after the other (rounds rotate the order). */
const withBaseline = (setup, make) => [setup, make(BASELINE_NODE, `${setup.key}-baseline`, `${setup.label} (baseline build)`)]

if (BASELINE_NODE !== undefined) {
  const setups = [
    ...withBaseline(single('lowdb', 'lowdb file'), (fixture, key, label) => single('lowdb', label, fixture, key)),
    ...withBaseline(single('redis', 'Redis'), (fixture, key, label) => single('redis', label, fixture, key)),
    ...withBaseline(behindProxy(2, 'proxy-2', 'two Redis nodes behind HAProxy'), (fixture, key, label) => behindProxy(2, key, label, fixture)),
  ].filter((setup) => parts.includes(setup.key.startsWith('proxy') ? 'cluster' : 'storage'))
  const { servers, runs, unavailable } = await runPart(setups)
  const results = summarize(servers, MODES, runs, unavailable)
  const row = ratioRows(results, runs, MODES)
  const ratios = [
    `| this build / baseline build, no regression (≥ 95%) | ${MODES.map((mode) => mode.label).join(' | ')} |`,
    `| --- |${' ---: |'.repeat(MODES.length)}`,
    ...setups
      .filter((setup) => !setup.key.endsWith('-baseline'))
      .flatMap((setup) =>
        WORKLOADS.map((workload) =>
          row(`${setup.label}, ${workload.label}`, `${setup.key}:${workload.key}`, `${setup.key}-baseline:${workload.key}`, percent, { met: (kept) => kept >= 0.95 }),
        ),
      ),
  ].join('\n')
  const { warnings, failed: partFailed } = runWarnings(results, unavailable)
  failed ||= partFailed
  allWarnings.push(...warnings)
  const section = [
    '## Storage and cluster: this build against an earlier one (no regression)',
    '',
    'Command: `npm run bench:cluster -- --baseline DIR` (DIR: a built checkout of the earlier commit).',
    `This build: ${commitOf(here('..'))}; baseline: ${commitOf(values.baseline)}. The same workloads and method as the`,
    'sections "Storage: memory, lowdb and Redis under one node" and "Two nodes behind HAProxy versus one",',
    'with `bench/fixtures/cluster-node.mjs` of each build: lowdb',
    'and Redis single nodes, and two Redis nodes behind HAProxy, both builds in every round (order rotated).',
    '"No regression" is this build\'s median at least 95% of the baseline\'s.',
    `${machineLine()}.`,
    '',
    resultTable(servers, MODES, results, unavailable, { cpu: true }),
    '',
    ratios,
    ...warnings.map((warning) => `\n${warning}`),
  ].join('\n')
  blocks.push(section)
  if (write) await writeSection('cluster-regression', section)
}

if (BASELINE_NODE === undefined && parts.includes('storage')) {
  const setups = [single('memory', 'in-memory store (anchor)'), single('lowdb', 'lowdb file'), single('redis', 'Redis')]
  const { servers, runs, unavailable } = await runPart(setups)
  const results = summarize(servers, MODES, runs, unavailable)
  const row = ratioRows(results, runs, MODES)
  const goals = [
    `| goal | ${MODES.map((mode) => mode.label).join(' | ')} |`,
    `| --- |${' ---: |'.repeat(MODES.length)}`,
    row('token: Redis / in-memory, goal ≥ 80%', 'redis:token', 'memory:token', percent, { met: (kept) => kept >= 0.8 }),
    row('tools/call: Redis / in-memory, goal ≥ 80%', 'redis:call', 'memory:call', percent, { met: (kept) => kept >= 0.8 }),
    row('token: lowdb / in-memory (no goal)', 'lowdb:token', 'memory:token', percent),
    row('tools/call: lowdb / in-memory (no goal)', 'lowdb:call', 'memory:call', percent),
  ].join('\n')
  const others = Math.max(0, ...Object.values(results).flatMap((byMode) => Object.values(byMode).map((r) => r.others ?? 0)))
  const { warnings, failed: partFailed } = runWarnings(results, unavailable)
  failed ||= partFailed
  allWarnings.push(...warnings)
  const section = [
    '## Storage: memory, lowdb and Redis under one node (issue 16)',
    '',
    'Command: `npm run bench:cluster` (this part: `-- --only storage`). One `mcp-auth start` main job per',
    'storage (`bench/fixtures/cluster-node.mjs`: the authorization server and the protected demo MCP',
    'server on one origin, rate limits on but raised out of the way): our in-memory store (the anchor),',
    'the lowdb file, and Redis (a local `redis-server` without persistence: records, rate limits, MCP',
    'sessions and SSE events). Two workloads on each: `client_credentials` token requests (Basic auth,',
    'an ES256 JWT bound to the MCP resource), and a protected stateful `tools/call` (echo) on one',
    '2025-11-25 session with that token (SSE answer). Node pinned to core 1, wrk, redis-server to core 0;',
    `warm-up ${WARMUP_SECONDS} s, then \`wrk -t1 -c<N> -d${SECONDS}s\`; ${ROUNDS} rounds of fresh nodes, order rotated;`,
    'medians, and in brackets the range of each goal ratio round by round.',
    `Other processes used up to ${(others * 100).toFixed(0)}% of a core during a measurement (redis-server counted as ours).`,
    `${machineLine()}.`,
    '',
    resultTable(servers, MODES, results, unavailable, { cpu: true }),
    '',
    goals,
    ...warnings.map((warning) => `\n${warning}`),
  ].join('\n')
  blocks.push(section)
  if (write) await writeSection('cluster-storage', section)
}

if (BASELINE_NODE === undefined && parts.includes('cluster')) {
  const setups = [
    single('redis', 'one Redis node, direct'),
    behindProxy(1, 'proxy-1', 'one Redis node behind HAProxy'),
    behindProxy(2, 'proxy-2', 'two Redis nodes behind HAProxy'),
  ]
  const { servers, runs, unavailable } = await runPart(setups)
  const results = summarize(servers, MODES, runs, unavailable)
  const row = ratioRows(results, runs, MODES)
  const ratios = [
    `| ratio of req/s (no goal on 2 cores) | ${MODES.map((mode) => mode.label).join(' | ')} |`,
    `| --- |${' ---: |'.repeat(MODES.length)}`,
    row('token: two nodes behind HAProxy / one node direct', 'proxy-2:token', 'redis:token', percent),
    row('token: one node behind HAProxy / direct', 'proxy-1:token', 'redis:token', percent),
    row('tools/call: two nodes behind HAProxy / one node direct', 'proxy-2:call', 'redis:call', percent),
    row('tools/call: one node behind HAProxy / direct', 'proxy-1:call', 'redis:call', percent),
  ].join('\n')
  const { warnings, failed: partFailed } = runWarnings(results, unavailable)
  failed ||= partFailed
  allWarnings.push(...warnings)
  const section = [
    '## Two nodes behind HAProxy versus one (issue 16)',
    '',
    'Command: `npm run bench:cluster` (this part: `-- --only cluster`). The same two workloads on Redis:',
    'one node reached directly, one node behind HAProxy (round robin, health checks on /healthz,',
    'X-Forwarded-* set), and two nodes behind it. Nodes on core 1 (two nodes share it), wrk, HAProxy',
    'and redis-server on core 0; same method as above. CPU µs/req sums the nodes.',
    `${machineLine()}.`,
    '',
    resultTable(servers, MODES, results, unavailable, { cpu: true }),
    '',
    ratios,
    ...warnings.map((warning) => `\n${warning}`),
  ].join('\n')
  blocks.push(section)
  if (write) await writeSection('cluster-nodes', section)
}

await Promise.all(cleanups.map((cleanup) => cleanup()))
printReport(blocks, allWarnings, started)
process.exitCode = failed ? 1 : 0
