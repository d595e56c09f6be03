import { META } from './revisions.js'

/**
 * The protocol version a 2026-07-28 request's `params._meta` names, without validating the rest:
 * the HTTP transports route a POST by it before the server reads the whole `_meta`.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta
 */
export function metaProtocolVersion(params: unknown): unknown {
  if (!isObject(params)) return undefined
  const meta = params._meta
  return isObject(meta) ? meta[META.protocolVersion] : undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
