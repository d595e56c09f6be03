import { REVISIONS, revisionOf } from './revisions.js'

/**
 * MCP protocol revisions this package speaks, newest first (the table is in revisions.ts).
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
 */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const
export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number]
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0]
/** The revisions negotiated with `initialize` (2026-07-28 has no handshake), newest first. */
export const HANDSHAKE_PROTOCOL_VERSIONS: readonly ProtocolVersion[] = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => revisionOf(v)?.era === 'handshake')
export const LATEST_HANDSHAKE_PROTOCOL_VERSION: ProtocolVersion = HANDSHAKE_PROTOCOL_VERSIONS[0]!
/** What a Streamable HTTP server assumes when a request carries no MCP-Protocol-Version. */
export const DEFAULT_NEGOTIATED_PROTOCOL_VERSION: ProtocolVersion = '2025-03-26'

if (REVISIONS.length !== SUPPORTED_PROTOCOL_VERSIONS.length) throw new Error('revisions.ts and versions.ts disagree')

export function isSupportedProtocolVersion(version: unknown): version is ProtocolVersion {
  return typeof version === 'string' && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version)
}

/** JSON-RPC batches exist only in 2025-03-26 (added there, removed in 2025-06-18). */
export function allowsBatch(version: string | undefined): boolean {
  return revisionOf(version)?.batching ?? false
}

/**
 * From 2025-11-25 invalid tool arguments are reported as a tool result with isError, so the model
 * can correct itself; before, they are a JSON-RPC -32602 error.
 */
export function reportsInputErrorsAsToolResults(version: string | undefined): boolean {
  return revisionOf(version)?.inputErrorsAsToolResults ?? false
}

/** outputSchema / structuredContent exist from 2025-06-18. */
export function supportsStructuredOutput(version: string | undefined): boolean {
  return revisionOf(version)?.structuredOutput ?? false
}
