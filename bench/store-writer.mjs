// The writer of bench:store: registers clients at <issuer> back to back for --seconds (dynamic
// client registration, RFC 7591, one request at a time), each new client used once at once (one
// client_credentials token, which takes it off the unused-clients list, as a real client would),
// so no registration cap interferes. Prints one JSON line: registrations, the seconds they took,
// and the latency of each registration (POST /register) in ms. bench/store.mjs runs it pinned to
// wrk's core.
// Usage: node bench/store-writer.mjs --issuer <url> --seconds S
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { checkToken, positiveOption, registerClientCredentials } from './harness.mjs'

const { values } = parseArgs({ options: { issuer: { type: 'string' }, seconds: { type: 'string' } } })
if (!values.issuer) throw new Error('--issuer is required')
const seconds = positiveOption(values, 'seconds')

const started = performance.now()
const deadline = started + seconds * 1000
const latencies = []
while (performance.now() < deadline) {
  const before = performance.now()
  const client = await registerClientCredentials(values.issuer)
  latencies.push(performance.now() - before)
  await checkToken(values.issuer, client)
}
console.log(JSON.stringify({ registrations: latencies.length, seconds: (performance.now() - started) / 1000, latencies }))
