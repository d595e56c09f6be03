import type { ClientCapabilities, ServerCapabilities } from './capabilities.js'

/**
 * Which capability a peer must have declared for a method to be sent to it. Methods not listed
 * here (ping, initialize, progress, cancelled, …) need none.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation
 */
const serverMethodCapability: Record<string, (caps: ServerCapabilities) => boolean> = {
  'logging/setLevel': (c) => !!c.logging,
  'prompts/list': (c) => !!c.prompts,
  'prompts/get': (c) => !!c.prompts,
  'resources/list': (c) => !!c.resources,
  'resources/templates/list': (c) => !!c.resources,
  'resources/read': (c) => !!c.resources,
  'resources/subscribe': (c) => !!c.resources?.subscribe,
  'resources/unsubscribe': (c) => !!c.resources?.subscribe,
  'tools/list': (c) => !!c.tools,
  'tools/call': (c) => !!c.tools,
  'completion/complete': (c) => !!c.completions,
}

const clientMethodCapability: Record<string, (caps: ClientCapabilities) => boolean> = {
  'sampling/createMessage': (c) => !!c.sampling,
  'elicitation/create': (c) => !!c.elicitation,
  'roots/list': (c) => !!c.roots,
}

/** Notifications the sender may only emit when it declared the matching capability itself. */
const serverNotificationCapability: Record<string, (caps: ServerCapabilities) => boolean> = {
  'notifications/message': (c) => !!c.logging,
  'notifications/resources/updated': (c) => !!c.resources?.subscribe,
  'notifications/resources/list_changed': (c) => !!c.resources?.listChanged,
  'notifications/tools/list_changed': (c) => !!c.tools?.listChanged,
  'notifications/prompts/list_changed': (c) => !!c.prompts?.listChanged,
}

const clientNotificationCapability: Record<string, (caps: ClientCapabilities) => boolean> = {
  'notifications/roots/list_changed': (c) => !!c.roots?.listChanged,
}

/** Does the server's declared capability set allow a client to send `method`? */
export function serverSupports(method: string, caps: ServerCapabilities): boolean {
  const check = serverMethodCapability[method]
  return check === undefined || check(caps)
}

/** Does the client's declared capability set allow a server to send `method`? */
export function clientSupports(method: string, caps: ClientCapabilities): boolean {
  const check = clientMethodCapability[method]
  return check === undefined || check(caps)
}

/** May a server that declared `caps` emit this notification? */
export function serverMayNotify(method: string, caps: ServerCapabilities): boolean {
  const check = serverNotificationCapability[method]
  return check === undefined || check(caps)
}

/** May a client that declared `caps` emit this notification? */
export function clientMayNotify(method: string, caps: ClientCapabilities): boolean {
  const check = clientNotificationCapability[method]
  return check === undefined || check(caps)
}
