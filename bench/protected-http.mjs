// Protected HTTP benchmark: authenticated stateless tools/call (ES256 JWT access token) throughput
// and p50/p99 at concurrency 1, 10, 64, in one run, with wrk: ours (createProtectedMcpApp +
// createJwtVerifier, stateless JSON) against the official SDK stateless JSON server behind its
// requireBearerAuth with a jose verifier, and the bare node:http ceiling (which ignores the token).
// This process makes one ES256 key pair; each server gets the public JWKS on its command line (no
// network) and verifies the token on every request. A token is minted per server start, since the
// audience is the server's resource URI and holds its port. Server pinned to core 1, wrk to core 0.
// Several rounds, interleaved, median per cell. Loopback only, bounded in time (about 3 min).
// With --baseline DIR (a checkout of an earlier commit, built: its dist/ and bench/fixtures/), the
// same run also measures that build's two servers of ours, interleaved with this build's, and
// reports this build / the baseline (no regression: medians within 5%) in a section of its own.
// With --observe, it measures ours only, with what it reports (issue 33) turned off, on part by part,
// all on without and with access lines (bench/fixtures/observe-mode.mjs), interleaved in one run:
// each against everything off, and each part's server CPU per request.
// Usage: npm run bench:protected [-- --seconds 4 --rounds 3 --no-write --only ours,sdk,ceiling --baseline DIR | --observe]
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { commitOf, machineLine, writeSection } from './report.mjs'
import { OBSERVE_MODES } from './fixtures/observe-mode.mjs'
import {
  cpuPerRequest,
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
  ticksOf,
  TOOLS_CALL_BODY,
} from './harness.mjs'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    'no-write': { type: 'boolean' },
    only: { type: 'string' },
    baseline: { type: 'string' },
    observe: { type: 'boolean' },
  },
})
const SECONDS = positiveOption(values, 'seconds')
const ROUNDS = positiveOption(values, 'rounds', { integer: true })
const MODES = [
  { key: '1', label: 'c=1', connections: 1 },
  { key: '10', label: 'c=10', connections: 10 },
  { key: '64', label: 'c=64', connections: 64 },
]
const GOAL_MODE = '10'
const WARMUP = { connections: 10, seconds: 5 }
const START_TIMEOUT_MS = 10_000
const FETCH_TIMEOUT_MS = 5_000
const ISSUER = 'https://as.bench.invalid'
const KID = 'bench-es256'
const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const DIST = here('../dist/app/protected-mcp-app.js')

requireWrk('bench:protected')

const ourAndAnchors = [
  { key: 'ceiling', label: 'bare node:http ceiling (token ignored)', script: here('./fixtures/http-ceiling.mjs'), protected: false },
  { key: 'sdk', label: 'official SDK, stateless JSON, requireBearerAuth + jose', script: here('./fixtures/sdk-bearer-stateless.mjs'), protected: true },
  {
    key: 'ours',
    label: 'mcp-auth, stateless JSON, createProtectedMcpApp (default: verified token remembered)',
    script: here('./fixtures/protected-ours.mjs'),
    protected: true,
    needs: DIST,
  },
  {
    key: 'ours-verify-each',
    label: 'mcp-auth, same, cacheMs 0 (signature verified on every request)',
    script: here('./fixtures/protected-ours.mjs'),
    args: ['--cache-ms', '0'],
    protected: true,
    needs: DIST,
  },
]
// The baseline build's servers of ours, beside this build's (the anchors need none).
const BASELINE = values.baseline === undefined ? undefined : join(values.baseline, 'bench/fixtures/protected-ours.mjs')
if (BASELINE !== undefined && !existsSync(join(values.baseline, 'dist/app/protected-mcp-app.js'))) {
  throw new Error(`--baseline ${values.baseline}: no dist/app/protected-mcp-app.js there (build that checkout first)`)
}
const BASELINE_KEYS = ['ours', 'ours-verify-each']
const withBaseline =
  BASELINE === undefined
    ? ourAndAnchors
    : ourAndAnchors.flatMap((server) =>
        BASELINE_KEYS.includes(server.key)
          ? [
              server,
              {
                ...server,
                key: `${server.key}-baseline`,
                label: `${server.label} (baseline build)`,
                script: BASELINE,
                needs: join(values.baseline, 'dist/app/protected-mcp-app.js'),
              },
            ]
          : [server],
      )
// --observe: ours in every reporting mode, nothing else
const OBSERVE_LABELS = {
  off: 'everything off (no request record, no limit, no trail, no metrics, no spans, no log)',
  record: 'the request record and id only',
  limits: 'per-principal rate limit (never reached)',
  metrics: 'Prometheus metrics',
  traces: 'OpenTelemetry spans through the API, no SDK',
  audit: 'audit trail (file; refusals only on this path)',
  'audit-calls': 'audit of every allowed call (opt-in per resource)',
  access: 'access lines at info (file)',
  on: 'limits + metrics + traces + audit + info log, access lines off',
  'on-access': 'all on, access lines at info',
}
const observeServers = OBSERVE_MODES.map((mode) => ({
  key: `observe-${mode}`,
  label: `mcp-auth, ${OBSERVE_LABELS[mode]}`,
  script: here('./fixtures/protected-ours.mjs'),
  args: ['--observe', mode],
  protected: true,
  needs: DIST,
}))
// and what node:http itself charges for an id header and an end listener, in the same run: the floor
const floorServers = [
  { key: 'floor-bare', label: 'bare node:http ceiling (token ignored)', script: here('./fixtures/http-ceiling.mjs'), protected: false },
  {
    key: 'floor-observed',
    label: 'bare node:http ceiling + an X-Request-Id header and a close listener',
    script: here('./fixtures/http-ceiling.mjs'),
    args: ['--observed'],
    protected: false,
  },
]
const only = values.only?.split(',').map((key) => key.trim())
const candidates = values.observe ? [...observeServers, ...floorServers] : withBaseline
const servers = only ? candidates.filter((server) => only.includes(server.key)) : candidates
// A partial run must not replace the full table in docs/performance.md.
const write = !values['no-write'] && !only

// One key pair for the run: the private key stays here, the servers get the public JWKS.
const keyPair = await generateKeyPair('ES256')
const JWKS = JSON.stringify({ keys: [{ ...(await exportJWK(keyPair.publicKey)), kid: KID, alg: 'ES256', use: 'sig' }] })
// A key the servers do not know, to check they really verify signatures.
const strangerKey = (await generateKeyPair('ES256')).privateKey

/** An RFC 9068 access token for `resource`, valid for an hour. */
function mint(resource, privateKey = keyPair.privateKey) {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ client_id: 'bench-client', scope: 'mcp' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: KID })
    .setIssuer(ISSUER)
    .setAudience(resource)
    .setSubject('bench-user')
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(privateKey)
}

const CALL = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }
const call = (url, token) =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(CALL),
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  })

// The call wrk sends, once with the token (200 with "hi"), and for the protected servers once
// without a token and once with a token signed by an unknown key (both 401), so a server that
// does not check, or checks nothing, fails loudly instead of being measured.
async function verify(server, url, token) {
  const ok = await call(url, token)
  const text = await ok.text()
  if (ok.status !== 200 || !text.includes('"text":"hi"')) throw new Error(`tools/call with the token answered ${ok.status}: ${text.slice(0, 200)}`)
  if (!server.protected) return
  for (const [what, bad] of [
    ['without a token', undefined],
    ['with a token signed by an unknown key', await mint(new URL(url).href, strangerKey)],
  ]) {
    const res = await call(url, bad)
    const body = await res.text()
    if (res.status !== 401) throw new Error(`tools/call ${what} answered ${res.status}, not 401: ${body.slice(0, 200)}`)
  }
}

async function measure(server, round) {
  if (server.needs && !existsSync(server.needs)) throw new Error('dist/ not built (npm run build)')
  const { child, url: origin } = await startServer([server.script, '--issuer', ISSUER, '--jwks', JWKS, ...(server.args ?? [])], START_TIMEOUT_MS)
  try {
    const url = new URL('/mcp', origin).href
    const token = await mint(url)
    await verify(server, url, token)
    const wrk = (connections, seconds) =>
      runWrk({
        url,
        connections,
        seconds,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}` },
        body: TOOLS_CALL_BODY,
      })
    await wrk(WARMUP.connections, WARMUP.seconds)
    const byMode = {}
    for (const mode of MODES) {
      const before = await ticksOf(child.pid)
      const r = (byMode[mode.key] = await wrk(mode.connections, SECONDS))
      const after = await ticksOf(child.pid)
      r.cpuUs = cpuPerRequest(before, after, r.rps * SECONDS)
      logMeasurement(round, server, mode, r)
    }
    return byMode
  } finally {
    child.kill('SIGKILL')
  }
}

// Rounds interleave the servers (the order rotates each round) so a slow spell of the machine
// does not land on one server only; each server is started fresh every round; each cell is the
// median of its rounds.
const started = Date.now()
const { runs, unavailable } = await runRounds(servers, ROUNDS, measure)
const results = summarize(servers, MODES, runs, unavailable)
const row = ratioRows(results, runs, MODES)
const percent = (value) => `${(value * 100).toFixed(0)}%`
const times = (value) => `${value.toFixed(1)}×`
const goal = (target) => ({ met: (value) => value >= target, judged: (mode) => mode.key === GOAL_MODE })
const goals = [
  `| ratio of req/s | ${MODES.map((mode) => (mode.key === GOAL_MODE ? `${mode.label} (goal)` : mode.label)).join(' | ')} |`,
  `| --- |${' ---: |'.repeat(MODES.length)}`,
  row('ours / official SDK, goal ≥ 10× at c=10', 'ours', 'sdk', times, goal(10)),
  row('ours / bare node:http ceiling, goal ≥ 35% at c=10', 'ours', 'ceiling', percent, goal(0.35)),
  row('ours with cacheMs 0 / official SDK (no goal)', 'ours-verify-each', 'sdk', times),
  row('ours with cacheMs 0 / bare node:http ceiling (no goal)', 'ours-verify-each', 'ceiling', percent),
  ...(BASELINE === undefined
    ? []
    : BASELINE_KEYS.map((key) =>
        row(`${key}: this build / baseline build, no regression (≥ 95%)`, key, `${key}-baseline`, percent, { met: (kept) => kept >= 0.95, judged: () => true }),
      )),
].join('\n')
const table = resultTable(servers, MODES, results, unavailable, { cpu: true })
const { warnings, failed } = runWarnings(results, unavailable)
const observeGoals = values.observe ? observeRows() : undefined
printReport(values.observe ? [table, observeGoals] : [table, goals], warnings, started)

/** The observe run's rows: each mode / everything off (req/s), the issue's two goals judged, and each part's server CPU per request beyond off. */
function observeRows() {
  const off = 'observe-off'
  const judged = { on: 0.95, 'on-access': 0.9 }
  const cpu = (key, mode) => results[key]?.[mode]?.cpuUs
  const rows = OBSERVE_MODES.filter((mode) => mode !== 'off').map((mode) =>
    row(
      `${mode} / off${judged[mode] ? `, goal ≥ ${judged[mode] * 100}%` : ''}`,
      `observe-${mode}`,
      off,
      (value) => `${(value * 100).toFixed(1)}%`,
      judged[mode] ? { met: (kept) => kept >= judged[mode], judged: () => true } : undefined,
    ),
  )
  const cost = OBSERVE_MODES.filter((mode) => mode !== 'off').map((mode) => {
    const cells = MODES.map((m) => {
      const a = cpu(`observe-${mode}`, m.key)
      const b = cpu(off, m.key)
      return a === undefined || b === undefined ? 'n/a' : `${a - b >= 0 ? '+' : ''}${(a - b).toFixed(1)} µs`
    })
    return `| ${mode} | ${cells.join(' | ')} |`
  })
  const floorCells = MODES.map((m) => {
    const a = cpu('floor-observed', m.key)
    const b = cpu('floor-bare', m.key)
    return a === undefined || b === undefined ? 'n/a' : `${a - b >= 0 ? '+' : ''}${(a - b).toFixed(1)} µs`
  })
  cost.push(`| node:http alone: an X-Request-Id header and a close listener (floor-observed − floor-bare) | ${floorCells.join(' | ')} |`)
  rows.push(row('node:http alone: id header + close listener / bare', 'floor-observed', 'floor-bare', (value) => `${(value * 100).toFixed(1)}%`))
  return [
    `| req/s against everything off | ${MODES.map((mode) => mode.label).join(' | ')} |`,
    `| --- |${' ---: |'.repeat(MODES.length)}`,
    ...rows,
    '',
    `| server CPU per request beyond everything off | ${MODES.map((mode) => mode.label).join(' | ')} |`,
    `| --- |${' ---: |'.repeat(MODES.length)}`,
    ...cost,
  ].join('\n')
}

if (write && values.observe) {
  await writeSection(
    'observe-protected',
    `## Protected HTTP with logs, audit, metrics, traces and limits (issue 33)

Command: \`npm run bench:protected -- --observe\`. The workload of the section "Protected HTTP: authenticated
stateless tools/call (ES256 JWT)" (one token, the echo tool, stateless JSON), ours only, in every
reporting mode of \`bench/fixtures/observe-mode.mjs\`: everything off, each part alone, all on with
access lines off (the log at \`info\` to a file, which then holds only what the flows record), and
all on with an access line per request. The limit is raised so the one token never reaches it (the
check runs on every request); the audit trail is the JSON-lines file; traces go through
\`@opentelemetry/api\` with no SDK registered (what a user who installed none pays). ${ROUNDS} rounds, every mode
started fresh each round, the order rotated; medians. The goals (issue 33): all on, access lines off,
at least 95% of everything off; with access lines as well, at least 90%. Server CPU per request is
the server process's user + system time per answered request; a part's cost is its median minus
that of everything off (noise of about ±1 µs on these VMs). The two bare node:http servers
(\`bench/fixtures/http-ceiling.mjs\`, with and without \`--observed\`) measure, in the same run
and with no code of ours, what node:http itself charges to return an \`X-Request-Id\` header and
listen for each answer's end, as the observer does: the floor under any request id, which the
product returns on every answer whatever else is turned off (the mode "record").
${pin ? 'Server pinned to core 1, wrk to core 0 (taskset).' : 'No taskset: not pinned.'}
${machineLine()}; build ${commitOf(here('..'))}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${observeGoals}`,
  )
} else if (write && BASELINE !== undefined) {
  await writeSection(
    'protected-regression',
    `## Protected HTTP: this build against an earlier one (no regression)

Command: \`npm run bench:protected -- --baseline DIR\` (DIR: a built checkout of the earlier commit, e.g.
\`git worktree add DIR <commit> && (cd DIR && ln -s $PWD/node_modules && npm run build)\`). This build: ${commitOf(here('..'))};
baseline: ${commitOf(values.baseline)}. The same method as the section "Protected HTTP: authenticated stateless tools/call
(ES256 JWT)" (${ROUNDS} rounds, the servers interleaved and the order rotated, medians), with
\`bench/fixtures/protected-ours.mjs\` of each build, as shipped and with \`cacheMs: 0\`, in every round.
"No regression" is this build's median at least 95% of the baseline's.
${pin ? 'Server pinned to core 1, wrk to core 0 (taskset).' : 'No taskset: not pinned.'}
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${goals}`,
  )
} else if (write) {
  await writeSection(
    'protected-http',
    `## Protected HTTP: authenticated stateless tools/call (ES256 JWT)

Command: \`npm run bench:protected\` (builds, then \`node bench/protected-http.mjs --seconds ${SECONDS} --rounds ${ROUNDS}\`; needs Debian's \`wrk\`).
The benchmark makes one ES256 key pair with jose; each server gets the public JWKS on its command
line (local, no network) and, once listening, one access token is minted for it: header
\`{alg: ES256, typ: at+jwt, kid}\`, \`iss\` ${ISSUER}, \`aud\` the server's resource URI
(\`http://127.0.0.1:<port>/mcp\`), \`exp\` an hour on, \`sub\`, \`client_id\`, \`scope\` mcp.
Ours is \`createProtectedMcpApp\` around the demo server, stateless with JSON answers, with
\`createJwtVerifier({ issuer, audience, jwks })\` and \`requiredScopes: ['mcp']\`
(\`bench/fixtures/protected-ours.mjs\`), measured twice: as shipped (a verified token is remembered,
keyed by the exact token, for at most 60 s and never past its \`exp\`: a client reusing its token
pays one signature check a minute) and with \`cacheMs: 0\` (a signature check per request). The anchor is the official SDK stateless JSON server (a new
server and transport per request) behind its \`requireBearerAuth\` on \`createMcpExpressApp\`, with a
verifier calling jose's \`jwtVerify\` on the same JWKS with the same checks (ES256, at+jwt, iss,
aud, exp) and \`requiredScopes: ['mcp']\` (\`bench/fixtures/sdk-bearer-stateless.mjs\`); it verifies
the signature on every request, as its documentation shows. The ceiling
(\`bench/fixtures/http-ceiling.mjs\`) answers a fixed result and ignores the token. Each server is
started fresh, checked with one real tools/call with the token (200 with "hi"); the two protected
ones must also answer 401 without a token and with a token signed by an unknown key. Then
${WARMUP.seconds} s of warm-up at c=${WARMUP.connections} and \`wrk -t1 -c<N> -d${SECONDS}s --latency\` with \`bench/wrk/post.lua\`
(echo tool, JSON-RPC id varies per request, \`Authorization: Bearer <token>\`). req/s counts 2xx
answers only; server CPU is the server process's user + system time (all threads) per answered
request. ${ROUNDS} rounds, the servers interleaved (order rotated each round); every figure is the
median of its rounds; in brackets, the range of the goal ratio round by round.
${pin ? 'Server pinned to core 1 (all its threads, including the libuv pool where WebCrypto verifies), wrk to core 0 (taskset).' : 'No taskset: not pinned.'}
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${goals}`,
  )
}
if (failed) process.exitCode = 1
