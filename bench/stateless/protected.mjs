// Part 2 of bench/stateless.mjs: the 2026-07-28 tools/call of part 1 behind an ES256 bearer
// token: ours (createProtectedMcpApp + createJwtVerifier, bench/fixtures/protected-ours.mjs) as
// shipped and with cacheMs 0, against the official SDK v2 behind its requireBearerAuth gate with
// a jose verifier, and the bare ceiling (token ignored). Writes the `stateless-protected`
// section of docs/performance.md.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { pin, ratioRows, resultTable, runRounds, runWarnings, summarize } from '../harness.mjs'
import { machineLine, writeSection } from '../report.mjs'
import { busiest, loadNote, measureServer, WARMUP } from './measure-server.mjs'
import { call, STATELESS_VERSION, verifyCall } from './request.mjs'
import { benchKeys, ISSUER } from './tokens.mjs'
import { MODES as ALL_MODES } from './throughput.mjs'

const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const DIST = here('../../dist/app/protected-mcp-app.js')
const MODES = ALL_MODES.filter((mode) => !mode.reference)
const GOAL_MODE = '10'

const SERVERS = [
  { key: 'ceiling', label: 'bare node:http ceiling (token ignored)', script: here('../fixtures/http-ceiling.mjs'), protected: false },
  { key: 'sdk', label: 'official SDK v2, requireBearerAuth + jose', script: here('../fixtures/sdk-v2-bearer-stateless.mjs'), protected: true },
  { key: 'ours', label: 'mcp-auth, createProtectedMcpApp (default: verified token remembered)', script: here('../fixtures/protected-ours.mjs'), protected: true, needs: DIST },
  {
    key: 'ours-verify-each',
    label: 'mcp-auth, same, cacheMs 0 (signature verified on every request)',
    script: here('../fixtures/protected-ours.mjs'),
    extra: ['--cache-ms', '0'],
    protected: true,
    needs: DIST,
  },
]

export async function runProtected({ seconds, rounds, write }) {
  const keys = await benchKeys()
  const servers = SERVERS.map((server) => ({ ...server, args: [server.script, '--issuer', ISSUER, '--jwks', keys.jwks, ...(server.extra ?? [])] }))
  // The call wrk sends, with the token (200 with "hi"); a protected server must also answer 401
  // without a token and with a forged one, so one that checks nothing fails loudly.
  async function prepare(server, url) {
    if (server.needs && !existsSync(server.needs)) throw new Error('dist/ not built (npm run build)')
    const authorization = { Authorization: `Bearer ${await keys.mint(url)}` }
    await verifyCall(url, authorization)
    if (server.protected) {
      for (const [what, headers] of [
        ['without a token', {}],
        ['with a forged token', { Authorization: `Bearer ${await keys.mintForged(url)}` }],
      ]) {
        const res = await call(url, headers)
        const body = await res.text()
        if (res.status !== 401) throw new Error(`tools/call ${what} answered ${res.status}, not 401: ${body.slice(0, 200)}`)
      }
    }
    return authorization
  }
  const { runs, unavailable } = await runRounds(servers, rounds, measureServer({ modes: MODES, seconds, prepare }))
  const results = summarize(servers, MODES, runs, unavailable)
  const row = ratioRows(results, runs, MODES)
  const percent = (value) => `${(value * 100).toFixed(0)}%`
  const times = (value) => `${value.toFixed(1)}×`
  const goals = [
    `| ratio of req/s | ${MODES.map((mode) => (mode.key === GOAL_MODE ? `${mode.label} (goal)` : mode.label)).join(' | ')} |`,
    `| --- |${' ---: |'.repeat(MODES.length)}`,
    row('ours / bare node:http ceiling, goal ≥ 40% at c=10', 'ours', 'ceiling', percent, { met: (value) => value >= 0.4, judged: (mode) => mode.key === GOAL_MODE }),
    row('ours / official SDK v2 (no goal)', 'ours', 'sdk', times),
    row('ours with cacheMs 0 / bare node:http ceiling (no goal)', 'ours-verify-each', 'ceiling', percent),
    row('ours with cacheMs 0 / official SDK v2 (no goal)', 'ours-verify-each', 'sdk', times),
  ].join('\n')
  const table = resultTable(servers, MODES, results, unavailable, { cpu: true })
  const { warnings, failed } = runWarnings(results, unavailable, (key) => SERVERS.find((server) => server.key === key).label)
  const load = loadNote(busiest(runs))
  if (write) {
    await writeSection(
      'stateless-protected',
      `## Protected stateless HTTP (MCP ${STATELESS_VERSION}): tools/call with an ES256 JWT

Command: \`npm run bench:stateless\` (builds, then \`node bench/stateless.mjs --seconds ${seconds} --protected-rounds ${rounds}\`; needs Debian's \`wrk\`).
The ${STATELESS_VERSION} call of the section above, with \`Authorization: Bearer <token>\`. Keys and tokens as in
the protected HTTP section (\`bench/stateless/tokens.mjs\`): one ES256 key pair per run, the public
JWKS given to each server on its command line (no network), one token per server start with
\`typ\` at+jwt, \`iss\` ${ISSUER}, \`aud\` the server's \`http://127.0.0.1:<port>/mcp\`, \`exp\` an hour on,
\`scope\` mcp. Ours is \`createProtectedMcpApp\` around the demo server with
\`createJwtVerifier({ issuer, audience, jwks })\` and \`requiredScopes: ['mcp']\`
(\`bench/fixtures/protected-ours.mjs\`), as shipped (a verified token is remembered, keyed by the
exact token, at most 60 s and never past \`exp\`) and with \`cacheMs: 0\` (a signature check per
request). The anchor is the SDK v2 server of the section above behind the SDK v2's own
\`requireBearerAuth({ verifier, requiredScopes: ['mcp'], resourceMetadataUrl, expectedResource })\`
gate, wired as its example shows (\`auth instanceof Response ? auth : handler.fetch(request, { authInfo })\`)
under \`toNodeHandler\`, with a verifier calling jose's \`jwtVerify\` with the same checks (ES256,
at+jwt, iss, aud, exp) on every request (\`bench/fixtures/sdk-v2-bearer-stateless.mjs\`). The
ceiling ignores the token. Each server is checked with one call with the token (200 with "hi"),
and the protected ones must answer 401 without a token and with a token signed by an unknown key.
Warm-up ${WARMUP.seconds} s at c=${WARMUP.connections}, then \`wrk -t1 -c<N> -d${seconds}s --latency\`; ${rounds} rounds, interleaved, medians;
in brackets the range of the goal ratio round by round.
${pin ? 'Server pinned to core 1 at c=10 and c=64 (all its threads, the libuv pool where WebCrypto verifies included), wrk to core 0; at c=1 both on core 0.' : 'No taskset: not pinned.'}
${load}
${machineLine()}.${warnings.length ? `\n\n${warnings.join('\n\n')}` : ''}

${table}

${goals}`,
    )
  }
  return { blocks: [table, goals, load.replaceAll('**', '')], warnings, failed }
}
