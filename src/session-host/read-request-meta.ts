import { ErrorCode, JsonRpcError, type JsonRpcParams } from '../jsonrpc/index.js'
import type { ClientCapabilities, Implementation } from '../schema/capabilities.js'
import { META } from '../schema/revisions.js'
import type { RequestMeta } from './session-host.js'
import { LOGGING_LEVELS, type LoggingLevel } from '../schema/features.js'

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Read the request metadata every 2026-07-28 request carries. A missing or malformed required
 * member (protocol version, client capabilities) is -32602; `clientInfo` is optional (servers
 * must not require it) but must be an Implementation when present.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta
 */
export function readRequestMeta(params: JsonRpcParams | undefined): RequestMeta {
  const meta = params?._meta
  if (!isObject(meta)) throw invalid('params._meta is required on every request of this revision')
  const protocolVersion = meta[META.protocolVersion]
  if (typeof protocolVersion !== 'string' || protocolVersion === '') throw invalid(`_meta["${META.protocolVersion}"] must be a string`)
  const clientCapabilities = meta[META.clientCapabilities]
  if (!isObject(clientCapabilities)) throw invalid(`_meta["${META.clientCapabilities}"] must be an object`)
  const clientInfo = meta[META.clientInfo]
  if (clientInfo !== undefined && !(isObject(clientInfo) && typeof clientInfo.name === 'string' && typeof clientInfo.version === 'string')) {
    throw invalid(`_meta["${META.clientInfo}"] must be an object with a name and a version`)
  }
  const logLevel = meta[META.logLevel]
  if (logLevel !== undefined && !(LOGGING_LEVELS as readonly unknown[]).includes(logLevel)) throw invalid(`_meta["${META.logLevel}"] is not a logging level`)
  return {
    protocolVersion,
    clientCapabilities: clientCapabilities as ClientCapabilities,
    clientInfo: clientInfo as Implementation | undefined,
    logLevel: logLevel as LoggingLevel | undefined,
  }
}

function invalid(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`)
}
