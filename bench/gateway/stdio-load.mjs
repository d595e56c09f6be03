// Anchor A of bench/gateway.mjs: a stdio MCP server alone, over its own stdio. This process (the
// load, run pinned to wrk's core) spawns the server (pinned to the server core), initializes it,
// then keeps `--in-flight` tools/call requests in flight for `--seconds` (a new one as each answer
// arrives) and prints one line: RESULT {"calls":…,"seconds":…,"errors":…}. Raw newline-delimited
// JSON-RPC, no client library, so the figure is the server's and its pipes', not a client's.
// Usage: node bench/gateway/stdio-load.mjs --seconds 5 --in-flight 10 --core 1 --body '<tools/call JSON with {id}>' -- <command> [args...]
import { spawn } from 'node:child_process'
import { parseArgs } from 'node:util'

const { values, positionals } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    'in-flight': { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    core: { type: 'string' },
    body: { type: 'string' },
  },
  allowPositionals: true,
})
const [command, ...args] = positionals
if (!command || !values.body) throw new Error('usage: stdio-load.mjs --body JSON -- <command> [args...]')
const SECONDS = Number(values.seconds)
const WARMUP_SECONDS = Number(values.warmup)
const IN_FLIGHT = Number(values['in-flight'])
const INIT_TIMEOUT_MS = 10_000

let finished = false
const [file, argv] = values.core === undefined ? [command, args] : ['taskset', ['-c', values.core, command, ...args]]
const child = spawn(file, argv, { stdio: ['pipe', 'pipe', 'ignore'] })
process.on('exit', () => child.kill('SIGKILL'))
child.once('exit', (code, signal) => {
  if (!finished) {
    console.error(`the server exited (${signal ?? code}) during the run`)
    process.exit(1)
  }
})

const waiting = new Map()
let buffered = ''
child.stdout.setEncoding('utf8').on('data', (chunk) => {
  buffered += chunk
  let newline = buffered.indexOf('\n')
  while (newline >= 0) {
    const line = buffered.slice(0, newline)
    buffered = buffered.slice(newline + 1)
    newline = buffered.indexOf('\n')
    if (line.trim() === '') continue
    const message = JSON.parse(line)
    if (message.id === undefined || message.method !== undefined) continue // notifications, server requests
    const settle = waiting.get(message.id)
    waiting.delete(message.id)
    settle?.(message)
  }
})

let nextId = 0
function request(method, params) {
  const id = ++nextId
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
  return new Promise((resolve) => waiting.set(id, resolve))
}
const notify = (method) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`)

const initialized = await Promise.race([
  request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-gateway-stdio', version: '1' } }),
  new Promise((_, reject) => setTimeout(() => reject(new Error('no answer to initialize')), INIT_TIMEOUT_MS)),
])
if (!initialized.result) throw new Error(`initialize failed: ${JSON.stringify(initialized)}`)
notify('notifications/initialized')

// The body comes as wrk's template (bench/wrk/post.lua): its id is ours to set.
const template = JSON.parse(values.body.replace('{id}', '0'))
const call = () => request(template.method, template.params)

/** Keeps IN_FLIGHT calls going until `until` (ns); resolves with the calls answered and the errors. */
async function load(until) {
  let calls = 0
  let errors = 0
  const lane = async () => {
    while (process.hrtime.bigint() < until) {
      const answer = await call()
      if (answer.error || answer.result?.isError) errors++
      else calls++
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane))
  return { calls, errors }
}

const first = await call()
if (!first.result) throw new Error(`tools/call failed: ${JSON.stringify(first)}`)
await load(process.hrtime.bigint() + BigInt(Math.round(WARMUP_SECONDS * 1e9)))
const started = process.hrtime.bigint()
const { calls, errors } = await load(started + BigInt(Math.round(SECONDS * 1e9)))
const seconds = Number(process.hrtime.bigint() - started) / 1e9
finished = true
console.log(`RESULT ${JSON.stringify({ calls, seconds, errors, check: first.result })}`)
child.stdin.end()
child.kill('SIGTERM')
process.exit(0)
