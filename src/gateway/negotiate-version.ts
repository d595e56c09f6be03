import { HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_PROTOCOL_VERSION } from '../schema/versions.js'

/**
 * The version the gateway answers a client's initialize with when it initialized the child
 * itself: the client's, unless the child speaks an older one (then the child's, as a server that
 * does not support the requested version answers); our latest for a version we do not know.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
 */
export function negotiateVersion(requested: unknown, childVersion: string): string {
  const ours = HANDSHAKE_PROTOCOL_VERSIONS as readonly string[]
  const asked = typeof requested === 'string' && ours.includes(requested) ? requested : LATEST_HANDSHAKE_PROTOCOL_VERSION
  const child = ours.indexOf(childVersion)
  // newest first: a larger index is an older revision
  return child !== -1 && child > ours.indexOf(asked) ? childVersion : asked
}
