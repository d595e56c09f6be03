// What a client of MCP revision 2026-07-28 sends (no initialize, no session): the headers and
// bodies of a stateless tools/call (echo "hi") and of a subscriptions/listen, for wrk and for the
// checks the benchmark makes before it measures a server.
export const STATELESS_VERSION = '2026-07-28'
const META = { 'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} }
const BASE_HEADERS = { 'MCP-Protocol-Version': STATELESS_VERSION, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }

/** Headers of a 2026-07-28 tools/call of the echo tool. */
export const CALL_HEADERS = { ...BASE_HEADERS, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo' }
/** Its body for wrk: `{id}` becomes a per-request counter (bench/wrk/post.lua). */
export const CALL_BODY = `{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":${JSON.stringify(META)}}}`
export const callBody = (id) => CALL_BODY.replace('{id}', String(id))

/** Headers and body of a subscriptions/listen asking for tools/list_changed. */
export const LISTEN_HEADERS = { ...BASE_HEADERS, 'Mcp-Method': 'subscriptions/listen' }
export const listenBody = (id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META } })

const FETCH_TIMEOUT_MS = 5_000

/** One tools/call as wrk sends it, with `headers` added (e.g. Authorization). */
export const call = (url, headers = {}) =>
  fetch(url, { method: 'POST', headers: { ...CALL_HEADERS, ...headers }, body: callBody(1), signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) })

/**
 * The call wrk will send, once: a server that does not answer it with 200, application/json and
 * the echoed "hi" fails loudly instead of being measured (the bare ceiling's fixed answer passes).
 */
export async function verifyCall(url, headers = {}) {
  const res = await call(url, headers)
  const text = await res.text()
  const type = res.headers.get('content-type') ?? ''
  if (res.status !== 200 || !type.startsWith('application/json') || !text.includes('"text":"hi"')) {
    throw new Error(`2026-07-28 tools/call check answered ${res.status} ${type}: ${text.slice(0, 200)}`)
  }
}
