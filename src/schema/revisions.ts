/**
 * What each MCP revision has, as data: the server, the client and the transports read this table
 * instead of comparing version strings where they stand. Two eras share one endpoint:
 *
 * - **handshake** (2024-11-05 … 2025-11-25): `initialize`, then a session; the server may send
 *   requests (sampling, elicitation, roots) on the connection.
 * - **stateless** (2026-07-28): no handshake and no session; every request carries its revision,
 *   the client's capabilities and optionally its identity in `_meta`; the server asks the client
 *   for input with multi-round results (MRTR) instead of requests of its own.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/changelog
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
 */
export interface Revision {
  readonly version: string
  readonly era: 'handshake' | 'stateless'
  /** JSON-RPC arrays accepted (2025-03-26 only). */
  readonly batching: boolean
  /** outputSchema / structuredContent. */
  readonly structuredOutput: boolean
  /** Invalid tool arguments answered as a tool result with isError, not as -32602. */
  readonly inputErrorsAsToolResults: boolean
  /** Methods this revision no longer has: a request for one is "method not found". */
  readonly removedMethods: ReadonlySet<string>
  /** Methods only this revision has. */
  readonly addedMethods: ReadonlySet<string>
  /** The error code of resources/read for an unknown URI (SEP-2164 moved it to -32602). */
  readonly resourceNotFoundCode: number
}

/** Methods of the handshake era that 2026-07-28 removed. */
const REMOVED_IN_STATELESS = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/initialized',
  'notifications/roots/list_changed',
])
const STATELESS_METHODS = new Set(['server/discover', 'subscriptions/listen'])
const NONE: ReadonlySet<string> = new Set()

function handshake(version: string, features: Pick<Revision, 'batching' | 'structuredOutput' | 'inputErrorsAsToolResults'>): Revision {
  return { version, era: 'handshake', ...features, removedMethods: NONE, addedMethods: NONE, resourceNotFoundCode: -32002 }
}

/** Every revision we speak, newest first. */
export const REVISIONS: readonly Revision[] = [
  {
    version: '2026-07-28',
    era: 'stateless',
    batching: false,
    structuredOutput: true,
    inputErrorsAsToolResults: true,
    removedMethods: REMOVED_IN_STATELESS,
    addedMethods: STATELESS_METHODS,
    resourceNotFoundCode: -32602,
  },
  handshake('2025-11-25', { batching: false, structuredOutput: true, inputErrorsAsToolResults: true }),
  handshake('2025-06-18', { batching: false, structuredOutput: true, inputErrorsAsToolResults: false }),
  handshake('2025-03-26', { batching: true, structuredOutput: false, inputErrorsAsToolResults: false }),
  handshake('2024-11-05', { batching: false, structuredOutput: false, inputErrorsAsToolResults: false }),
]

const BY_VERSION = new Map(REVISIONS.map((revision) => [revision.version, revision]))

/** The revision of `version`, if we speak it. */
export function revisionOf(version: string | undefined): Revision | undefined {
  return version === undefined ? undefined : BY_VERSION.get(version)
}

/** Whether `version` is a revision of the stateless era (no initialize, `_meta` on every request). */
export function isStatelessRevision(version: string | undefined): boolean {
  return revisionOf(version)?.era === 'stateless'
}

/** Whether a method exists in `version` (a revision we do not know: only what all share). */
export function revisionHasMethod(version: string | undefined, method: string): boolean {
  const revision = revisionOf(version)
  if (revision === undefined) return !STATELESS_METHODS.has(method)
  if (revision.removedMethods.has(method)) return false
  if (STATELESS_METHODS.has(method)) return revision.addedMethods.has(method)
  return true
}

/**
 * Keys of `_meta` and the HTTP headers the stateless era defines.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata
 */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const

export const HEADERS = {
  protocolVersion: 'mcp-protocol-version',
  method: 'mcp-method',
  name: 'mcp-name',
} as const

/** The request field `Mcp-Name` mirrors, for the methods that have one. */
export const NAME_FIELD: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
}

/** Requests that may be answered with an input-required result (MRTR). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read'])

/** Results that carry caching hints (`ttlMs`, `cacheScope`) in the stateless era. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read'])
