// Client login benchmark: the full first login on loopback, from the first MCP request (answered
// 401) to the successful tool result, with the browser hand-off completed by this process, for our
// login helper (McpOAuth + McpClient + StreamableHttpClientTransport) against the official SDK
// client's auth() flow (Client + StreamableHTTPClientTransport with an OAuthClientProvider), both
// against the same `mcp-auth start` in the same run. Every trial starts from nothing (a new token
// store / provider), so it registers a new client: 401 → protected resource metadata → AS metadata
// → dynamic registration → authorize (our login and consent forms driven over HTTP with a cookie
// jar: bench/fixtures/form-handoff.mjs) → token → initialize again → tools/call whoami, whose
// answer must name the client just registered. Reports median and p90 time (hand-off included,
// and apart), and HTTP round trips: the client's own (MCP, discovery, registration, token: every
// request through the fetch each client is given) and the hand-off's. Trials alternate the two
// clients (order swapped each pair) after a few warm-up pairs. Server pinned to core 1, this process
// (the clients being measured) to core 0. Loopback only, bounded (about 20 s), temp dirs removed.
// Usage: npm run bench:login [-- --trials 30 --warmup 5 --no-write]
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { formLogin } from './fixtures/form-handoff.mjs'
import { machineLine, writeSection } from './report.mjs'
import { median, onInterrupt, otherShare, otherTicks, pin, positiveOption, printReport, startServer } from './harness.mjs'

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '5' },
    'no-write': { type: 'boolean' },
  },
})
const TRIALS = positiveOption(values, 'trials', { integer: true })
const WARMUP = Number(values.warmup)
if (!Number.isInteger(WARMUP) || WARMUP < 0) throw new Error(`--warmup must be a non-negative integer, not ${values.warmup}`)
const write = !values['no-write']

const USERNAME = 'demo'
const PASSWORD = 'bench password 1'
/** The SDK host's redirect URI: a loopback port nobody listens on; the hand-off stops there and hands the code to finishAuth. */
const SDK_REDIRECT_URI = 'http://127.0.0.1:43117/callback'
const START_TIMEOUT_MS = 30_000
const STOP_TIMEOUT_MS = 5_000
// Other processes busier than this share of one core while the trials ran get the run flagged.
const QUIET_CPU_SHARE = 0.1

const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const CLI = here('../dist/cli/main.js')
if (!existsSync(CLI)) throw new Error('dist/ not built (npm run build)')
const { McpOAuth } = await import(here('../dist/auth/client/mcp-oauth.js'))
const { FileTokenStore } = await import(here('../dist/auth/client/token-store.js'))
const { McpClient } = await import(here('../dist/client/index.js'))
const { StreamableHttpClientTransport } = await import(here('../dist/transports/http-client/index.js'))

// The clients are what is measured: keep them on core 0, away from the server on core 1.
const selfPinned = pin && spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' }).status === 0

const tempDirs = new Set()
onInterrupt(() => Promise.all([...tempDirs].map((dir) => rm(dir, { recursive: true, force: true }))))
async function tempDir(prefix) {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  tempDirs.add(dir)
  return dir
}
async function removeDir(dir) {
  await rm(dir, { recursive: true, force: true })
  tempDirs.delete(dir)
}

/** What a request was for, by path. */
function kindOf(path) {
  if (path === '/mcp') return 'mcp'
  if (path.startsWith('/.well-known/')) return 'discovery'
  if (path === '/register') return 'registration'
  if (path === '/token') return 'token'
  if (path === '/callback') return 'callback'
  return 'other'
}

/** The real fetch, each request written down (method, path, status) when it is sent. */
function countingFetch(log) {
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined
    const entry = { method: init?.method ?? request?.method ?? 'GET', path: new URL(request?.url ?? String(input)).pathname, status: undefined }
    entry.kind = kindOf(entry.path)
    log.push(entry)
    try {
      const response = await fetch(input, init)
      entry.status = response.status
      return response
    } catch (error) {
      entry.status = 'error'
      throw error
    }
  }
}

/** The whoami answer must name a subject, the client just registered, and the mcp scope. */
function checkWhoami(result, clientId, label) {
  const text = result?.content?.[0]?.text
  let identity
  try {
    identity = JSON.parse(text)
  } catch {
    throw new Error(`${label}: whoami answered no identity: ${JSON.stringify(result).slice(0, 300)}`)
  }
  if (result.isError === true || typeof identity.subject !== 'string' || identity.subject === '') throw new Error(`${label}: whoami answered no subject: ${text}`)
  if (identity.clientId !== clientId) throw new Error(`${label}: whoami names client ${identity.clientId}, not the one registered (${clientId})`)
  if (!identity.scopes?.includes('mcp')) throw new Error(`${label}: the token lacks the mcp scope: ${text}`)
}

/** A first login is exactly one 401, one registration and one token request, all answered as expected. */
function checkLog(log, label) {
  const count = (method, kind, status) => log.filter((e) => e.method === method && e.kind === kind && e.status === status).length
  const problems = []
  if (count('POST', 'mcp', 401) !== 1) problems.push(`${count('POST', 'mcp', 401)} × 401 on /mcp`)
  if (count('POST', 'registration', 201) !== 1) problems.push(`${count('POST', 'registration', 201)} registrations`)
  if (count('POST', 'token', 200) !== 1) problems.push(`${count('POST', 'token', 200)} token grants`)
  // The standalone GET /mcp (server-to-client SSE stream) each client opens after initialize may
  // still be waiting for its headers when the tool result arrives, or be refused with 405.
  const stream = (e) => e.method === 'GET' && e.kind === 'mcp' && (e.status === 'pending' || e.status === 200 || e.status === 405)
  const failed = log.filter((e) => !stream(e) && (typeof e.status !== 'number' || (e.status >= 400 && !(e.kind === 'mcp' && e.status === 401))))
  if (failed.length) problems.push(`failed: ${failed.map(show).join(', ')}`)
  if (problems.length) throw new Error(`${label}: not a clean first login (${problems.join('; ')}): ${log.map(show).join(' → ')}`)
}
/** The log as it stands at the tool result: a request still waiting for its answer shows as pending. */
const snapshot = (log) => log.map((e) => ({ ...e, status: e.status ?? 'pending' }))
const show = (e) => `${e.method} ${e.path} ${e.status ?? 'error'}`

/** Our login helper: a new FileTokenStore in a new temp dir; the hand-off drives the forms, then delivers the callback to McpOAuth's loopback listener. */
async function oursTrial(mcpUrl) {
  const dir = await tempDir('mcp-auth-bench-login-')
  try {
    const store = new FileTokenStore(join(dir, 'tokens.json'))
    const clientLog = []
    const handoffLog = []
    let handoffMs = 0
    let handoffs = 0
    let callbackMs = 0
    const handoff = async (authorizationUrl) => {
      const t = performance.now()
      handoffs += 1
      const redirectUri = authorizationUrl.searchParams.get('redirect_uri')
      const { callback, pages } = await formLogin(authorizationUrl, { username: USERNAME, password: PASSWORD, redirectUri, fetch: countingFetch(handoffLog) })
      if (pages.join() !== 'login,consent') throw new Error(`ours: the hand-off saw pages ${pages.join()}`)
      if (callback.searchParams.get('code') === null) throw new Error(`ours: the authorization ended without a code: ${callback.href}`)
      // What the browser does last: follow the redirect to the loopback listener.
      const c = performance.now()
      const delivered = await countingFetch(handoffLog)(callback)
      await delivered.text()
      if (delivered.status !== 200) throw new Error(`ours: the loopback listener answered ${delivered.status}`)
      callbackMs = performance.now() - c
      handoffMs += performance.now() - t
    }
    const auth = new McpOAuth(mcpUrl, { store, handoff, clientName: 'bench-login', fetch: countingFetch(clientLog) })
    const client = new McpClient({ name: 'bench-login', version: '1' })
    const started = performance.now()
    let result, ms, trips
    try {
      await client.connect(new StreamableHttpClientTransport(mcpUrl, { fetch: auth.fetch }))
      result = await client.callTool('whoami', {})
      ms = performance.now() - started
      trips = snapshot(clientLog)
    } finally {
      await client.close().catch(() => {})
    }
    if (handoffs !== 1) throw new Error(`ours: ${handoffs} hand-offs`)
    const saved = JSON.parse(await readFile(store.file, 'utf8'))
    const registered = Object.values(saved.clients ?? {})
    if (registered.length !== 1 || registered[0].source !== 'dynamic') throw new Error(`ours: expected one dynamic registration in the store, found ${JSON.stringify(registered)}`)
    checkWhoami(result, registered[0].client_id, 'ours')
    checkLog(trips, 'ours')
    return { ms, handoffMs, callbackMs, trips, handoffTrips: handoffLog }
  } finally {
    await removeDir(dir)
  }
}

/** What an MCP host keeps for one server, in memory (as in test/e2e/sdk-oauth-client.test.ts). */
class InMemoryOAuthClientProvider {
  authorizationUrls = []
  #clientInformation
  #tokens
  #codeVerifier
  #discoveryState
  get redirectUrl() {
    return SDK_REDIRECT_URI
  }
  get clientMetadata() {
    return {
      client_name: 'bench-login',
      redirect_uris: [SDK_REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }
  }
  clientInformation() {
    return this.#clientInformation
  }
  saveClientInformation(clientInformation) {
    this.#clientInformation = clientInformation
  }
  tokens() {
    return this.#tokens
  }
  saveTokens(tokens) {
    this.#tokens = tokens
  }
  redirectToAuthorization(authorizationUrl) {
    this.authorizationUrls.push(authorizationUrl)
  }
  saveCodeVerifier(codeVerifier) {
    this.#codeVerifier = codeVerifier
  }
  codeVerifier() {
    if (this.#codeVerifier === undefined) throw new Error('no code verifier saved')
    return this.#codeVerifier
  }
  saveDiscoveryState(state) {
    this.#discoveryState = state
  }
  discoveryState() {
    return this.#discoveryState
  }
}

/**
 * The official SDK client: connect → UnauthorizedError (auth() has discovered, registered and
 * asked the provider to redirect) → the hand-off drives the forms → finishAuth(code) (token
 * request) → a new transport, connect → callTool whoami. auth() gets the transport's fetch.
 */
async function sdkTrial(mcpUrl) {
  const provider = new InMemoryOAuthClientProvider()
  const clientLog = []
  const handoffLog = []
  const fetchFn = countingFetch(clientLog)
  const url = new URL(mcpUrl)
  const client = new Client({ name: 'bench-login', version: '1' })
  const started = performance.now()
  let result, ms, trips, handoffMs
  try {
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: fetchFn })
    const refused = await client.connect(first).then(
      () => undefined,
      (error) => error,
    )
    if (!(refused instanceof UnauthorizedError)) throw new Error(`sdk: the first connect ended with ${refused ?? 'a connection'}, not UnauthorizedError`)
    if (provider.authorizationUrls.length !== 1) throw new Error(`sdk: ${provider.authorizationUrls.length} authorization redirects`)
    const authorizationUrl = provider.authorizationUrls[0]
    const t = performance.now()
    const { callback, pages } = await formLogin(authorizationUrl, { username: USERNAME, password: PASSWORD, redirectUri: SDK_REDIRECT_URI, fetch: countingFetch(handoffLog) })
    handoffMs = performance.now() - t
    if (pages.join() !== 'login,consent') throw new Error(`sdk: the hand-off saw pages ${pages.join()}`)
    if (callback.searchParams.get('state') !== authorizationUrl.searchParams.get('state')) throw new Error('sdk: state mismatch')
    const code = callback.searchParams.get('code')
    if (code === null) throw new Error(`sdk: the authorization ended without a code: ${callback.href}`)
    await first.finishAuth(code)
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: fetchFn }))
    result = await client.callTool({ name: 'whoami', arguments: {} })
    ms = performance.now() - started
    trips = snapshot(clientLog)
  } finally {
    await client.close().catch(() => {})
  }
  checkWhoami(result, provider.clientInformation()?.client_id, 'sdk')
  checkLog(trips, 'sdk')
  return { ms, handoffMs, trips, handoffTrips: handoffLog }
}

const CLIENTS = [
  { key: 'ours', label: 'mcp-auth: McpOAuth + McpClient', run: oursTrial },
  { key: 'sdk', label: 'official SDK: auth() + Client', run: sdkTrial },
]

const started = Date.now()
const root = await tempDir('mcp-auth-bench-login-server-')
const config = join(root, 'config.json')
// 2 × (warm-up + trials) logins and registrations in well under a minute: the per-address login
// and registration limits (10 and 20 a minute) would refuse most of them.
await writeFile(config, JSON.stringify({ rateLimits: false }))
process.env.MCP_AUTH_DEMO_PASSWORD = PASSWORD
const { child, url } = await startServer([CLI, 'start', '--port', '0', '--data-dir', join(root, 'data'), '--config', config], START_TIMEOUT_MS)
const mcpUrl = `${url}/mcp`
console.error(`server: ${url}${pin ? ' (core 1)' : ''}; clients${selfPinned ? ' on core 0' : ' unpinned'}`)

const runs = { ours: [], sdk: [] }
let others
try {
  let before
  for (let pair = 0; pair < WARMUP + TRIALS; pair++) {
    if (pair === WARMUP) before = await otherTicks(new Set([process.pid, child.pid]))
    const order = pair % 2 === 0 ? CLIENTS : [...CLIENTS].reverse()
    for (const c of order) {
      const r = await c.run(mcpUrl)
      const measured = pair >= WARMUP
      if (measured) runs[c.key].push(r)
      console.error(
        `${measured ? `trial ${pair - WARMUP + 1}` : `warm-up ${pair + 1}`} ${c.key}: ${r.ms.toFixed(1)} ms (hand-off ${r.handoffMs.toFixed(1)} ms), ${r.trips.length} client round trips + ${r.handoffTrips.length} hand-off`,
      )
    }
  }
  const seconds = (Date.now() - started) / 1000
  const after = await otherTicks(new Set([process.pid, child.pid]))
  others = otherShare(before, after, seconds)
} finally {
  await new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
  await removeDir(root)
}

const p90 = (numbers) => {
  const sorted = [...numbers].sort((x, y) => x - y)
  return sorted[Math.ceil(sorted.length * 0.9) - 1]
}
const range = (numbers) => (Math.min(...numbers) === Math.max(...numbers) ? String(numbers[0]) : `${Math.min(...numbers)}–${Math.max(...numbers)}`)
const KINDS = ['mcp', 'discovery', 'registration', 'token']
const results = {}
for (const c of CLIENTS) {
  const rs = runs[c.key]
  results[c.key] = {
    ms: median(rs.map((r) => r.ms)),
    p90: p90(rs.map((r) => r.ms)),
    handoffMs: median(rs.map((r) => r.handoffMs)),
    clientMs: median(rs.map((r) => r.ms - r.handoffMs)),
    clientP90: p90(rs.map((r) => r.ms - r.handoffMs)),
    trips: median(rs.map((r) => r.trips.length)),
    tripsRange: range(rs.map((r) => r.trips.length)),
    handoffTrips: median(rs.map((r) => r.handoffTrips.length)),
    byKind: Object.fromEntries(KINDS.map((kind) => [kind, median(rs.map((r) => r.trips.filter((e) => e.kind === kind).length))])),
    callbackMs: c.key === 'ours' ? median(rs.map((r) => r.callbackMs)) : undefined,
    formTrips: median(rs.map((r) => r.handoffTrips.filter((e) => e.kind !== 'callback').length)),
    sequence: rs.at(-1).trips.map(show).join(' → '),
  }
}
const o = results.ours
const s = results.sdk
const ms = (value) => value.toFixed(1)
const table = [
  '| client | median ms | p90 ms | hand-off ms (median) | median ms without hand-off | p90 ms without hand-off | client round trips (median, range) | hand-off round trips |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...CLIENTS.map((c) => {
    const r = results[c.key]
    return `| ${c.label} | ${ms(r.ms)} | ${ms(r.p90)} | ${ms(r.handoffMs)} | ${ms(r.clientMs)} | ${ms(r.clientP90)} | ${r.trips} (${r.tripsRange}) | ${r.handoffTrips} |`
  }),
].join('\n')
const ratios = [
  '| ratio | median time | p90 time | median time without hand-off | client round trips |',
  '| --- | ---: | ---: | ---: | ---: |',
  `| ours / SDK | ${(o.ms / s.ms).toFixed(2)}× | ${(o.p90 / s.p90).toFixed(2)}× | ${(o.clientMs / s.clientMs).toFixed(2)}× | ${(o.trips / s.trips).toFixed(2)}× |`,
].join('\n')
const kinds = [
  `| client round trips by kind (median) | ${KINDS.join(' | ')} |`,
  `| --- |${' ---: |'.repeat(KINDS.length)}`,
  ...CLIENTS.map((c) => `| ${c.label} | ${KINDS.map((kind) => results[c.key].byKind[kind]).join(' | ')} |`),
].join('\n')
const sequences = CLIENTS.map((c) => `- ${c.label}: ${results[c.key].sequence}`).join('\n')
// Where the counts differ, say why (checked against the logs, so the text cannot outlive the cause).
const notes = []
if (o.byKind.discovery === 2 * s.byKind.discovery) {
  notes.push(
    `Ours fetches the protected resource metadata and the AS metadata twice per first login: \`McpOAuth\` discovers on the 401 (\`#recover\`), then \`#authorize\` discovers again because it is handed the same challenge, and \`#discover\` reuses its result only when called without one. ${o.byKind.discovery - s.byKind.discovery === o.trips - s.trips ? `That accounts for the ${o.trips - s.trips} extra round trips.` : `That is ${o.byKind.discovery - s.byKind.discovery} of the ${o.trips - s.trips} extra round trips.`}`,
  )
}
notes.push(
  'Ours also writes the registration and then the tokens to its token file (each write under the file lock, to a temp file, fsynced, renamed); the SDK host here keeps them in memory. Ours starts and stops its loopback listener; the SDK leaves receiving the redirect to the host.',
)
const warnings = [
  others !== undefined && others > QUIET_CPU_SHARE
    ? `**Other processes used ${(others * 100).toFixed(0)}% of a core while the trials ran: the machine was not quiet, figures may be disturbed; re-run.**`
    : '',
].filter(Boolean)

printReport([table, ratios, kinds, sequences], warnings, started)

if (write) {
  await writeSection(
    'client-login',
    `## Client login: the first login on loopback, ours versus the official SDK client

Command: \`npm run bench:login\` (builds, then \`node bench/client-login.mjs --trials ${TRIALS} --warmup ${WARMUP}\`).
One \`mcp-auth start\` (the built CLI, authorization server and demo MCP server on one origin, a new
temp data dir, login and registration rate limits off so that ${2 * (WARMUP + TRIALS)} logins fit in a minute) serves both
clients in the same run. Every trial is a first login from nothing, so it registers a new client:
401 → protected resource metadata → AS metadata → dynamic registration → authorize → token →
initialize again → \`tools/call whoami\`, whose answer must name the client just registered (and
the log must show exactly one 401, one registration, one token grant), else the run fails.
Ours is \`McpOAuth\` (a new \`FileTokenStore\` in a new temp dir each trial) handing \`auth.fetch\` to
\`McpClient\` over \`StreamableHttpClientTransport\`; the SDK (${sdkVersion()}) is \`Client\` over
\`StreamableHTTPClientTransport\` with an in-memory \`OAuthClientProvider\`: connect →
UnauthorizedError → hand-off → \`finishAuth(code)\` → a new transport, connect → \`callTool\`.
The hand-off is what a browser would do, done by this process over HTTP
(\`bench/fixtures/form-handoff.mjs\`: cookie jar, login form, consent form, redirects followed by
hand); for ours it ends by GETting the redirect on McpOAuth's loopback listener, for the SDK the
host passes the code to \`finishAuth\` (the SDK has no listener of its own; its redirect URI is a
loopback port nobody listens on).
Time runs from the first MCP request to the tool result, hand-off included; the hand-off's own
time is also shown and subtracted. Client round trips are every request through the fetch each
client is given (McpOAuth's \`fetch\` option, which carries discovery, registration, token and MCP
requests alike; the SDK transport's \`fetch\` option, which it also hands to \`auth()\` as \`fetchFn\`),
up to the tool result (the closing DELETE is not counted). Hand-off round trips are counted apart;
the form pages are the same for both (${o.formTrips === s.formTrips ? `${o.formTrips} requests` : `${o.formTrips} for ours, ${s.formTrips} for the SDK`}), ours adds
the one callback request (median ${ms(o.callbackMs)} ms, inside its hand-off time). ${WARMUP} warm-up pairs, then ${TRIALS} pairs, the two clients alternating
(order swapped each pair). ${pin ? `Server pinned to core 1 (taskset)${selfPinned ? ', the clients (this process) to core 0' : ''}.` : 'No taskset: not pinned.'}
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${ratios}

${kinds}

Requests of the last trial of each:

${sequences}${notes.length ? `\n\n${notes.join('\n\n')}` : ''}`,
  )
}

function sdkVersion() {
  try {
    return `@modelcontextprotocol/sdk ${JSON.parse(readFileSync(here('../node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')).version}`
  } catch {
    return '@modelcontextprotocol/sdk'
  }
}
