// The HTTP side of bench/gateway.mjs: what wrk sends (a tools/call of server-everything's echo,
// in a session or as a 2026-07-28 stateless request), opening a Streamable HTTP session
// (initialize, then notifications/initialized) and checking one call before a server is measured.
const FETCH_TIMEOUT_MS = 15_000
const SESSION_VERSION = '2025-11-25'
export const STATELESS_VERSION = '2026-07-28'

/** server-everything's echo answers "Echo: <message>". */
export const ECHO_BODY = '{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}'
export const ECHO_ANSWER = 'Echo: hi'
const META = { 'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} }
/** The same call as a 2026-07-28 client sends it: no session, the revision and capabilities in `_meta`. */
export const STATELESS_ECHO_BODY = `{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},"_meta":${JSON.stringify(META)}}}`
export const STATELESS_HEADERS = { 'MCP-Protocol-Version': STATELESS_VERSION, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo' }
export const BASE_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }

/** The JSON-RPC messages of an answer, whether JSON or an SSE stream of `data:` lines. */
function messagesOf(type, text) {
  if (type.startsWith('application/json')) return [JSON.parse(text)].flat()
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter(Boolean)
    .map((data) => JSON.parse(data))
}

/** POSTs one JSON-RPC message; the status, headers and the answer to `id` (when one came). */
export async function post(url, headers, message) {
  const res = await fetch(url, { method: 'POST', headers: { ...BASE_HEADERS, ...headers }, body: JSON.stringify(message), signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) })
  const text = await res.text()
  let answer
  try {
    answer = messagesOf(res.headers.get('content-type') ?? '', text).find((m) => m.id === message.id && m.method === undefined)
  } catch {
    answer = undefined
  }
  return { status: res.status, headers: res.headers, answer, text }
}

/** Opens a session with `headers` (e.g. Authorization): the headers every later request of it carries. */
export async function openSession(url, headers = {}) {
  const init = await post(url, headers, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: SESSION_VERSION, capabilities: {}, clientInfo: { name: 'bench-gateway', version: '1' } },
  })
  const sessionId = init.headers.get('mcp-session-id')
  if (init.status !== 200 || !init.answer?.result || !sessionId) throw new Error(`initialize answered ${init.status}: ${init.text.slice(0, 300)}`)
  const session = { ...headers, 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': init.answer.result.protocolVersion }
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...BASE_HEADERS, ...session },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  })
  await res.arrayBuffer()
  if (res.status !== 202) throw new Error(`notifications/initialized answered ${res.status}`)
  return session
}

/** The call wrk will send, once: anything but 200 with "Echo: hi" fails loudly instead of being measured. */
export async function checkEcho(url, headers, body = ECHO_BODY) {
  const message = JSON.parse(body.replace('{id}', '1'))
  const { status, answer, text } = await post(url, headers, message)
  const echoed = answer?.result?.content?.[0]?.text
  if (status !== 200 || echoed !== ECHO_ANSWER) throw new Error(`tools/call echo answered ${status}: ${text.slice(0, 300)}`)
}

/** The same call without its Authorization header must answer 401: a gateway that checks no token is not measured. */
export async function checkRefusedWithoutToken(url, headers, body = ECHO_BODY) {
  const { Authorization: _, ...anonymous } = headers
  const { status, text } = await post(url, anonymous, JSON.parse(body.replace('{id}', '2')))
  if (status !== 401) throw new Error(`tools/call without a token answered ${status}, not 401: ${text.slice(0, 200)}`)
}
