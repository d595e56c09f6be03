// DPoP benchmark (issue 17): a protected stateless tools/call with a DPoP-bound ES256 JWT and a
// fresh DPoP proof per request, against the same call with a Bearer token, on the same server
// (bench/fixtures/protected-ours.mjs: createProtectedMcpApp, DPoP accepted by default, proofs
// remembered in memory), in one run, with wrk. This process plays the authorization server (one
// ES256 key; the server gets its public JWKS) and the client (one ES256 DPoP key): proofs are made
// here before each measurement, one per request wrk will send (bench/wrk/dpop.lua), since a
// proof is good for one request only. Server pinned to core 1, wrk to core 0; rounds
// interleaved, medians; server CPU per request from /proc. The same server with the token's
// signature verified on every request shows what one ES256 verification costs, in the same run.
// Loopback only, about 3 min.
// Usage: npm run bench:dpop [-- --seconds 4 --rounds 3 --no-write]
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose'
import { benchKeys, ISSUER } from './stateless/tokens.mjs'
import { machineLine, writeSection } from './report.mjs'
import {
  cpuPerRequest,
  logMeasurement,
  pinned,
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

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '4' }, rounds: { type: 'string', default: '3' }, 'no-write': { type: 'boolean' } } })
const SECONDS = positiveOption(values, 'seconds')
const ROUNDS = positiveOption(values, 'rounds', { integer: true })
const MODES = [
  { key: '10', label: 'c=10', connections: 10 },
  { key: '64', label: 'c=64', connections: 64 },
]
const WARMUP_SECONDS = 3
const START_TIMEOUT_MS = 10_000
const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const DIST = here('../dist/app/protected-mcp-app.js')
const DPOP_LUA = here('./wrk/dpop.lua')
const POST_LUA = here('./wrk/post.lua')

requireWrk('bench:dpop')
if (!existsSync(DIST)) throw new Error('dist/ not built (npm run build)')

const { jwks: JWKS, mint: mintFor } = await benchKeys()
const clientKey = await generateKeyPair('ES256')
const clientJwk = await exportJWK(clientKey.publicKey)
const jkt = await calculateJwkThumbprint(clientJwk, 'sha256')
const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-bench-dpop-'))

/** An RFC 9068 access token for `resource`, bound to the client's key when `bound`. */
const mint = (resource, bound) => mintFor(resource, bound ? { cnf: { jkt } } : {})

/** `count` proofs for POST `url` covering `token`, in a file wrk reads. */
async function proofFile(url, token, count) {
  const ath = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)).then((hash) => Buffer.from(hash).toString('base64url'))
  const iat = Math.floor(Date.now() / 1000)
  const lines = []
  for (let i = 0; i < count; i++) {
    lines.push(
      await new SignJWT({ jti: randomUUID(), htm: 'POST', htu: url, iat, ath }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: clientJwk }).sign(clientKey.privateKey),
    )
  }
  const path = join(dir, `proofs-${randomUUID()}.txt`)
  await writeFile(path, `${lines.join('\n')}\n`)
  return path
}

const call = (url, headers) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: TOOLS_CALL_BODY.replace('{id}', '1'),
  })

const servers = [
  { key: 'bearer', label: 'tools/call, Bearer token (the anchor; verified token remembered, as by default)', bound: false },
  { key: 'dpop', label: 'tools/call, DPoP-bound token (remembered) and a fresh proof per request', bound: true },
  { key: 'bearer-each', label: 'tools/call, Bearer token, its ES256 signature verified on every request (cacheMs 0)', bound: false, args: ['--cache-ms', '0'] },
]

// Proofs per measurement: twice the DPoP rate seen so far (a first guess before), times the time;
// a run out of proofs would replay them, and those refusals would show as non-2xx in the table.
let proofRate = 15_000

async function measure(server, round) {
  const { child, url: origin } = await startServer([here('./fixtures/protected-ours.mjs'), '--issuer', ISSUER, '--jwks', JWKS, ...(server.args ?? [])], START_TIMEOUT_MS)
  try {
    const url = `${origin}/mcp`
    const token = await mint(url, server.bound)
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `${server.bound ? 'DPoP' : 'Bearer'} ${token}` }
    const wrk = async (connections, seconds) => {
      if (!server.bound) return runWrk({ url, connections, seconds, headers, body: TOOLS_CALL_BODY })
      const proofs = await proofFile(url, token, Math.ceil(proofRate * seconds))
      try {
        return await runWrk({ url, connections, seconds, headers, body: TOOLS_CALL_BODY, script: DPOP_LUA, env: { WRK_PROOFS: proofs, WRK_POST_LUA: POST_LUA } })
      } finally {
        await rm(proofs, { force: true })
      }
    }
    if (server.bound) {
      // checked once: the proof works, and the same token as Bearer or with a replayed proof does not
      const one = await proofFile(url, token, 1)
      const [proof] = (await readFile(one, 'utf8')).split('\n')
      await rm(one, { force: true })
      const ok = await call(url, { authorization: `DPoP ${token}`, dpop: proof })
      if (ok.status !== 200) throw new Error(`tools/call with DPoP answered ${ok.status}: ${(await ok.text()).slice(0, 200)}`)
      if ((await call(url, { authorization: `DPoP ${token}`, dpop: proof })).status !== 401) throw new Error('a replayed proof was not refused')
      if ((await call(url, { authorization: `Bearer ${token}` })).status !== 401) throw new Error('a bound token as Bearer was not refused')
    }
    await wrk(10, WARMUP_SECONDS)
    const results = {}
    for (const mode of MODES) {
      const before = await ticksOf(child.pid)
      const r = await wrk(mode.connections, SECONDS)
      r.cpuUs = cpuPerRequest(before, await ticksOf(child.pid), r.rps * SECONDS)
      if (server.key === 'dpop') proofRate = Math.max(2 * r.rps, 2_000)
      logMeasurement(round, server, mode, r)
      results[mode.key] = r
    }
    return results
  } finally {
    child.kill('SIGTERM')
  }
}

const started = Date.now()
// the unit of the goal: one ES256 verification, measured on the server's core in this run
const measured = spawnSync(...pinned('1', process.execPath, [here('./fixtures/es256-verify-cost.mjs')]), { encoding: 'utf8' })
const verifyUs = Number(/verify_us=([\d.]+)/.exec(measured.stdout)?.[1])
if (!(verifyUs > 0)) throw new Error(`could not measure an ES256 verification: ${measured.stderr}`)
try {
  const { runs, unavailable } = await runRounds(servers, ROUNDS, measure)
  const results = summarize(servers, MODES, runs, unavailable)
  const perRound = (mode, f) => {
    const values = runs.dpop
      .map((run, i) => f(run[mode.key].cpuUs, runs.bearer[i]?.[mode.key].cpuUs, runs['bearer-each'][i]?.[mode.key].cpuUs))
      .filter(Number.isFinite)
      .sort((a, b) => a - b)
    return values.length === 0 ? undefined : values[values.length >> 1]
  }
  const cpuRatio = (mode) => perRound(mode, (dpop, bearer) => dpop / bearer)
  // what DPoP adds per request, in units of one ES256 verification with node:crypto on the server's core
  const verifications = (mode) => perRound(mode, (dpop, bearer) => (dpop - bearer) / verifyUs)
  const goal = (mode) => {
    const ratio = cpuRatio(mode)
    return ratio === undefined ? 'n/a' : `${ratio.toFixed(2)}× ${ratio <= 2 ? 'met' : '**not met**'}`
  }
  const { warnings, failed } = runWarnings(results, unavailable)
  const blocks = [
    '## DPoP-bound tokens against Bearer at the resource server (issue 17)',
    [
      "Command: `npm run bench:dpop` (builds, then `node bench/dpop.mjs`; needs Debian's `wrk`). One server",
      '(`bench/fixtures/protected-ours.mjs`: `createProtectedMcpApp` around the demo server, stateless',
      'JSON, DPoP accepted by default, used proofs remembered in memory), a stateless `tools/call` with an',
      "ES256 JWT: as Bearer, and bound to the client's ES256 key (`cnf.jkt`) with a fresh DPoP proof per",
      'request (made before the measurement, one per request, each used once; `bench/wrk/dpop.lua`).',
      `Server pinned to core 1, wrk to core 0; warm-up ${WARMUP_SECONDS} s, then \`wrk -t1 -c<N> -d${SECONDS}s\`; ${ROUNDS} rounds, interleaved, medians.`,
      machineLine(),
    ].join('\n'),
    resultTable(servers, MODES, results, unavailable, { cpu: true }),
    [
      '| ratio | c=10 | c=64 |',
      '| --- | ---: | ---: |',
      ratioRows(results, runs, MODES)('req/s, DPoP / Bearer (no goal)', 'dpop', 'bearer', (value) => `${(value * 100).toFixed(0)}%`),
      `| server CPU per request, DPoP / Bearer, goal ≤ 2× at c=10 | ${goal(MODES[0])} | ${cpuRatio(MODES[1])?.toFixed(2) ?? 'n/a'}× |`,
      `| CPU DPoP adds per request, in ES256 verifications (${verifyUs.toFixed(0)} µs each with node:crypto on this core), goal: one | ${verifications(MODES[0])?.toFixed(2) ?? 'n/a'} | ${verifications(MODES[1])?.toFixed(2) ?? 'n/a'} |`,
      `| server CPU per request, DPoP / Bearer with its signature verified each time (no goal) | ${perRound(MODES[0], (dpop, _b, each) => dpop / each)?.toFixed(2) ?? 'n/a'}× | ${perRound(MODES[1], (dpop, _b, each) => dpop / each)?.toFixed(2) ?? 'n/a'}× |`,
    ].join('\n'),
    ...warnings,
  ]
  if (!values['no-write']) await writeSection('dpop', blocks.join('\n\n'))
  printReport(blocks, warnings, started)
  if (failed) process.exitCode = 1
} finally {
  await rm(dir, { recursive: true, force: true })
}
