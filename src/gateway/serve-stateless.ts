import { defaults } from '../config/defaults.js'
import { ErrorCode, JsonRpcError, type JsonRpcMessage, type JsonRpcParams, type JsonRpcRequest } from '../jsonrpc/index.js'
import { CACHEABLE_METHODS, META, revisionHasMethod, revisionOf } from '../schema/revisions.js'
import { SUPPORTED_PROTOCOL_VERSIONS } from '../schema/versions.js'
import { removedMethodError } from '../session-host/removed-method-error.js'
import type { RequestMeta, SessionlessIo } from '../session-host/session-host.js'
import type { ChildRoute } from './child-link.js'
import { inBandRefusal } from './in-band-refusal.js'
import type { LongLivedChildren, ReadyChild } from './long-lived-children.js'
import { principalOf } from './principal.js'

type Result = Record<string, unknown>

/** The `_meta` members of a 2026-07-28 request that describe the request itself: the child, of an older revision, gets none of them. */
const ENVELOPE = new Set<string>([META.protocolVersion, META.clientCapabilities, META.clientInfo, META.logLevel])

/**
 * Refuse a 2026-07-28 request the gateway cannot serve: a version it does not speak (-32022), a
 * method the revision removed or does not have (-32601), and `subscriptions/listen`, which the
 * gateway does not offer (a stdio server's notifications reach stateful sessions only).
 */
export function checkStatelessRequest(meta: RequestMeta, method: string): void {
  const revision = revisionOf(meta.protocolVersion)
  if (revision === undefined || revision.era !== 'stateless') {
    throw new JsonRpcError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${meta.protocolVersion}`, {
      supported: [...SUPPORTED_PROTOCOL_VERSIONS],
      requested: meta.protocolVersion,
    })
  }
  if (revision.removedMethods.has(method)) throw removedMethodError(meta.protocolVersion, method)
  if (method === 'subscriptions/listen') {
    throw new JsonRpcError(ErrorCode.MethodNotFound, 'Method not found: subscriptions/listen is not offered by the mcp-auth gateway; use a stateful session for notifications')
  }
  if (method !== 'server/discover' && !revisionHasMethod(meta.protocolVersion, method)) throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`)
}

/**
 * Serve one admitted 2026-07-28 request from the principal's long-lived child, which speaks an
 * older revision: `server/discover` from what the child said at initialize, anything else relayed
 * without the request's envelope `_meta` (progress and cancellation both ways), its result given
 * the 2026-07-28 members (`resultType`, the server's identity, caching hints).
 * @see https://modelcontextprotocol.io/specification/2026-07-28/changelog
 */
export async function serveStatelessRequest(children: LongLivedChildren, request: JsonRpcRequest, _meta: RequestMeta, io: SessionlessIo): Promise<Result> {
  let child: ReadyChild
  try {
    child = await children.acquire(principalOf(io.authInfo))
  } catch (error) {
    throw inBandRefusal(error)
  }
  if (request.method === 'server/discover') {
    const { capabilities, instructions } = child.init
    const result: Result = { supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS], capabilities }
    if (instructions !== undefined) result.instructions = instructions
    return decorate(child, request.method, result)
  }
  return decorate(child, request.method, await relay(child, request, io))
}

function relay(child: ReadyChild, request: JsonRpcRequest, io: SessionlessIo): Promise<Result> {
  return new Promise<Result>((resolve, reject) => {
    const route: ChildRoute = {
      deliver(message: JsonRpcMessage) {
        if ('method' in message) {
          if (message.method === 'notifications/progress') io.notify(message.method, message.params ?? {}).catch(() => {})
          return
        }
        if ('error' in message) reject(asStatelessError(JsonRpcError.fromObject(message.error)))
        else resolve(message.result as Result)
      },
    }
    io.onCancel(() => child.link.forward({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: request.id, reason: 'the client went away' } }, route))
    child.link.forward({ jsonrpc: '2.0', id: request.id, method: request.method, params: withoutEnvelope(request.params) }, route)
  })
}

/** The request's params without the 2026-07-28 envelope in `_meta` (progress tokens and the rest stay). */
function withoutEnvelope(params: JsonRpcParams | undefined): JsonRpcParams {
  if (params === undefined) return {}
  const meta = params._meta
  if (typeof meta !== 'object' || meta === null) return params
  const kept: Record<string, unknown> = {}
  let any = false
  for (const [key, value] of Object.entries(meta)) {
    if (ENVELOPE.has(key)) continue
    kept[key] = value
    any = true
  }
  const { _meta: _, ...rest } = params
  return any ? { ...rest, _meta: kept } : rest
}

/** SEP-2164: from 2026-07-28 an unknown resource is -32602, not the -32002 of older revisions. */
function asStatelessError(error: JsonRpcError): JsonRpcError {
  if (error.code === ErrorCode.ResourceNotFound) return new JsonRpcError(ErrorCode.InvalidParams, error.message, error.data, { cause: error })
  return error
}

function decorate(child: ReadyChild, method: string, result: Result): Result {
  const decorated: Result = Object.assign({}, result)
  decorated.resultType = 'complete'
  if (CACHEABLE_METHODS.has(method)) {
    // one principal's child: what it lists is that principal's, and may change at any time
    const hint = defaults.server.cacheHints[method] ?? { ttlMs: 0, cacheScope: 'private' as const }
    if (decorated.ttlMs === undefined) decorated.ttlMs = hint.ttlMs
    if (decorated.cacheScope === undefined) decorated.cacheScope = 'private'
  }
  const meta = result._meta
  const serverInfo = { name: child.init.serverInfo.name, version: child.init.serverInfo.version }
  decorated._meta = typeof meta === 'object' && meta !== null ? { ...meta, [META.serverInfo]: serverInfo } : { [META.serverInfo]: serverInfo }
  return decorated
}
