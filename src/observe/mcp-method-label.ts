/**
 * The JSON-RPC methods of the MCP specification (2024-11-05 to 2026-07-28) a metric or span names
 * as they are; any other method (a server's own, or a client's invention) is `other`, so the
 * label's values are a fixed set whatever clients send.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/schema
 */
const MCP_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
  'subscriptions/listen',
  'server/discover',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
])

/** `method` when the MCP specification defines it, else `other`. */
export function mcpMethodLabel(method: string): string {
  return MCP_METHODS.has(method) ? method : 'other'
}
