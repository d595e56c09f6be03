// The load side of the memory benchmark, run as its own process (bench/stateless/memory.mjs
// spawns it): opens --count idle streams to one server and holds them until its stdin closes,
// then destroys every socket and exits. Prints "opened <n>" now and then, "open <n> in <ms> ms"
// once all are open and have answered, or "error <message>" (exit 1).
//   --kind session-get  a 2025-11-25 session per stream: POST initialize, POST
//                       notifications/initialized (on a pool of keep-alive sockets), then a GET
//                       SSE stream on a socket of its own, held once its 200 headers arrive
//   --kind listen       a 2026-07-28 subscriptions/listen POST, held once its first event
//                       (notifications/subscriptions/acknowledged) arrives
//   --kind get          a plain GET, held once its first bytes arrive (the bare node:http ceiling)
// Usage: node bench/stateless/open-streams.mjs --url <endpoint> --kind <kind> --count N [--concurrency 64]
import { Agent, request } from 'node:http'
import { parseArgs } from 'node:util'
import { LISTEN_HEADERS, listenBody } from './request.mjs'

const { values } = parseArgs({ options: { url: { type: 'string' }, kind: { type: 'string' }, count: { type: 'string' }, concurrency: { type: 'string', default: '64' } } })
const url = new URL(values.url)
const count = Number(values.count)
const concurrency = Number(values.concurrency)
const SESSION_VERSION = '2025-11-25'
const STEP_TIMEOUT_MS = 30_000
// POSTs of the session handshakes share keep-alive sockets; each held stream has its own.
const pool = new Agent({ keepAlive: true, maxSockets: concurrency })
const held = new Set()

/**
 * Sends one request; resolves with { res, req, text } at its response headers (`until: 'headers'`),
 * at its first SSE event ('first-event'), or at its end ('end', the default).
 */
function send({ method, headers, body, agent = false, until = 'end' }) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      if (until === 'headers') return resolve({ res, req, text: '' })
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        text += chunk
        if (until === 'first-event' && text.includes('\n\n')) {
          res.removeAllListeners('data')
          res.resume()
          resolve({ res, req, text })
        }
      })
      res.once('end', () => resolve({ res, req, text }))
    })
    req.setTimeout(STEP_TIMEOUT_MS, () => req.destroy(new Error(`${method} timed out`)))
    req.once('error', reject)
    req.end(body)
  })
}

/** Keeps a stream open (its bytes read and dropped) until the end; a stream that ends early fails the run. */
function hold({ res, req }) {
  req.setTimeout(0)
  res.resume()
  held.add(req)
  res.once('close', () => {
    if (held.delete(req) && !closing) fail(new Error('a held stream was closed by the server'))
  })
}

const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }

async function openSessionStream(i) {
  const init = await send({
    method: 'POST',
    agent: pool,
    headers: JSON_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: SESSION_VERSION, capabilities: {}, clientInfo: { name: `bench-${i}`, version: '1' } },
    }),
  })
  const sessionId = init.res.headers['mcp-session-id']
  if (init.res.statusCode !== 200 || !sessionId) throw new Error(`initialize answered ${init.res.statusCode}: ${init.text.slice(0, 200)}`)
  const session = { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': SESSION_VERSION }
  const initialized = await send({
    method: 'POST',
    agent: pool,
    headers: { ...JSON_HEADERS, ...session },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  })
  if (initialized.res.statusCode !== 202) throw new Error(`notifications/initialized answered ${initialized.res.statusCode}`)
  const stream = await send({ method: 'GET', headers: { Accept: 'text/event-stream', ...session }, until: 'headers' })
  if (stream.res.statusCode !== 200 || !String(stream.res.headers['content-type']).startsWith('text/event-stream')) throw new Error(`GET stream answered ${stream.res.statusCode}`)
  hold(stream)
}

async function openListenStream(i) {
  const stream = await send({ method: 'POST', headers: LISTEN_HEADERS, body: listenBody(i), until: 'first-event' })
  if (stream.res.statusCode !== 200 || !stream.text.includes('notifications/subscriptions/acknowledged'))
    throw new Error(`subscriptions/listen answered ${stream.res.statusCode}: ${stream.text.slice(0, 200)}`)
  hold(stream)
}

async function openGetStream() {
  const stream = await send({ method: 'GET', headers: { Accept: 'text/event-stream' }, until: 'first-event' })
  if (stream.res.statusCode !== 200) throw new Error(`GET answered ${stream.res.statusCode}`)
  hold(stream)
}

const open = { 'session-get': openSessionStream, listen: openListenStream, get: openGetStream }[values.kind]
if (!open || !(count > 0) || !(concurrency > 0)) {
  console.log(`error usage: --kind session-get|listen|get --count N (got ${values.kind}, ${values.count})`)
  process.exit(1)
}

let closing = false
function closeAll() {
  closing = true
  for (const req of held) req.destroy()
  held.clear()
  pool.destroy()
}
function fail(error) {
  console.log(`error ${error.message}`)
  closeAll()
  process.exit(1)
}
process.stdin.on('end', () => {
  closeAll()
  process.exit(0)
})
process.stdin.resume()

const started = Date.now()
let next = 0
let opened = 0
async function worker() {
  while (next < count) {
    await open(next++)
    if (++opened % 1000 === 0) console.log(`opened ${opened}`)
  }
}
try {
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker))
} catch (error) {
  fail(error)
}
pool.destroy()
console.log(`open ${held.size} in ${Date.now() - started} ms`)
