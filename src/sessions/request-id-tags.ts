import type { JsonRpcMessage, JsonRpcParams } from '../jsonrpc/index.js'

/**
 * Ids of the requests a server sends to a client (elicitation, sampling, roots) when several
 * processes serve one session. Each process's endpoint numbers its requests from 0, so two could
 * send the same id; and the client's answer may be POSTed to any process. The session transport
 * therefore sends them as `<node>.<transport>.<n>`: the handler (8 hex digits) that waits for the
 * answer, its transport (a new one each time the process takes the session up again, so an
 * answer meant for an earlier one is not taken for a new request), and the endpoint's own number.
 * The same goes for the progress token the endpoint derives from the id, and for the
 * notifications/cancelled it sends about such a request. A string id (the gateway relays a
 * child's own ids, e.g. `s1`) is tagged `<node>.<transport>.~<id>`, so it comes back a string.
 */
const TAGGED = /^([0-9a-f]{8})\.[0-9a-z]+\.(\d{1,15}|~[^\n]{1,256})$/

/** The id as its tag ends: digits for a number, `~` and the string for a string. */
const tagged = (prefix: string, id: string | number): string => (typeof id === 'number' ? `${prefix}${id}` : `${prefix}~${id}`)

/** The prefix of one transport's ids: `<node>.<transport>.` */
export function tagPrefix(node: string, transport: number): string {
  return `${node}.${transport.toString(36)}.`
}

/** The message as it goes out: the ids of our requests tagged (a new object; the endpoint keeps its own). */
export function tagOutgoing(message: JsonRpcMessage, prefix: string): JsonRpcMessage {
  if (!('method' in message)) return message
  const params = message.params
  if ('id' in message) {
    const id = tagged(prefix, message.id)
    const meta = params?._meta as Record<string, unknown> | undefined
    if (meta === undefined || meta.progressToken !== message.id) return { ...message, id }
    return { ...message, id, params: { ...params, _meta: { ...meta, progressToken: id } } }
  }
  const requestId = params?.requestId
  if (message.method === 'notifications/cancelled' && (typeof requestId === 'number' || typeof requestId === 'string')) {
    return { ...message, params: { ...params, requestId: tagged(prefix, requestId) } }
  }
  return message
}

/**
 * The tagged id an inbound message answers to: a response's id, or a progress notification's
 * token; undefined for anything else (the client's own requests and notifications).
 */
export function answeredTag(message: JsonRpcMessage): string | undefined {
  let tag: unknown
  if (!('method' in message)) tag = message.id
  else if (message.method === 'notifications/progress') tag = message.params?.progressToken
  return typeof tag === 'string' && TAGGED.test(tag) ? tag : undefined
}

/** The node (handler) whose request a tag names. */
export function nodeOfTag(tag: string): string {
  return tag.slice(0, tag.indexOf('.'))
}

/**
 * The answer with the endpoint's own id back in place, when `tag` is one of this transport's;
 * undefined when it is another's (an earlier transport of the session: nobody waits for it).
 */
export function untag(message: JsonRpcMessage, tag: string, prefix: string): JsonRpcMessage | undefined {
  if (!tag.startsWith(prefix)) return undefined
  const rest = tag.slice(prefix.length)
  const id = rest.startsWith('~') ? rest.slice(1) : Number(rest)
  if (!('method' in message)) return { ...message, id }
  return { ...message, params: { ...(message.params as JsonRpcParams), progressToken: id } }
}
