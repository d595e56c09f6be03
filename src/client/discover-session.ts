import { ErrorCode, JsonRpcError } from '../jsonrpc/index.js'
import type { Endpoint } from '../protocol/endpoint.js'
import { LocalError } from '../protocol/errors.js'
import type { Transport } from '../protocol/transport.js'
import type { ClientCapabilities, Implementation, InitializeResult, ServerCapabilities } from '../schema/capabilities.js'
import { META, isStatelessRevision } from '../schema/revisions.js'
import { withRequestMeta } from './request-envelope.js'
import { requireObject } from './response-shape.js'

export interface DiscoverRequest {
  clientInfo: Implementation
  capabilities: ClientCapabilities
  /** Stateless revisions we may speak, newest first (one when pinned). */
  versions: readonly string[]
  /** Pinned: any answer but one of `versions` fails instead of falling back. */
  pinned: boolean
  signal?: AbortSignal | undefined
}

/**
 * Connect in the stateless era (2026-07-28): `server/discover` in our newest revision. A result
 * that lists a revision we share settles it; `-32022` naming one we share is retried in it once
 * (even the revision just sent: the server may have refused something else about it).
 * Anything that shows a server of the handshake era (a JSON-RPC error, an HTTP 4xx refusal, a
 * result without a shared stateless revision) returns undefined: the caller falls back to
 * `initialize`, unless the revision is pinned. Timeouts, network failures and auth refusals are
 * not evidence of an older server and propagate.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle
 */
export async function discoverSession(endpoint: Endpoint, transport: Transport, request: DiscoverRequest): Promise<InitializeResult | undefined> {
  let version = request.versions[0]
  for (let attempt = 0; version !== undefined && attempt < 2; attempt++) {
    transport.setProtocolVersion?.(version)
    let result: Record<string, unknown>
    try {
      result = await endpoint.request(
        'server/discover',
        withRequestMeta(undefined, { protocolVersion: version, capabilities: request.capabilities, clientInfo: request.clientInfo }),
        request.signal === undefined ? {} : { signal: request.signal },
      )
    } catch (error) {
      const refusal = versionRefusal(error, request.versions)
      if (refusal !== undefined) {
        // the spec's corrective step: retry once in a revision the server listed, even the same one
        const { supported, retry } = refusal
        if (retry !== undefined && attempt === 0) {
          version = retry
          continue
        }
        if (request.pinned) {
          throw new LocalError('unsupported_protocol_version', `the server does not speak ${request.versions.join(', ')} (it speaks ${JSON.stringify(supported)})`, {
            cause: error,
          })
        }
        break
      }
      if (!request.pinned && showsHandshakeServer(error)) break
      throw error
    }
    // a result without a shared revision (an older server answering whatever it answers to
    // unknown methods, say) is no evidence of this era
    const offered = result.supportedVersions
    const chosen = Array.isArray(offered) && offered.includes(version) ? version : shared(offered, request.versions)
    if (chosen === undefined) break
    requireObject(result, 'capabilities', 'server/discover')
    transport.setProtocolVersion?.(chosen)
    return asServerDescription(result, chosen)
  }
  if (request.pinned) {
    throw new LocalError('unsupported_protocol_version', `the server does not speak ${request.versions.join(', ')} (server/discover offered none of it)`)
  }
  transport.setProtocolVersion?.(undefined)
  return undefined
}

/** The newest of our versions the server lists. */
function shared(offered: unknown, ours: readonly string[]): string | undefined {
  if (!Array.isArray(offered)) return undefined
  return ours.find((version) => offered.includes(version) && isStatelessRevision(version))
}

/**
 * A `-32022` refusal: the revisions the server listed (`data.supported`) and the newest stateless
 * one of ours among them, to retry in; undefined for any other error.
 */
export function versionRefusal(error: unknown, ours: readonly string[]): { supported: unknown; retry: string | undefined } | undefined {
  if (!(error instanceof JsonRpcError) || error.code !== ErrorCode.UnsupportedProtocolVersion) return undefined
  const supported = typeof error.data === 'object' && error.data !== null ? (error.data as { supported?: unknown }).supported : undefined
  return { supported, retry: shared(supported, ours) }
}

/** What a server of the handshake era answers a request before `initialize`. */
function showsHandshakeServer(error: unknown): boolean {
  if (error instanceof JsonRpcError) return true
  const status = (error as { status?: unknown } | undefined)?.status
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 429
}

/** A discover result in the shape the rest of the client keeps about a server. */
function asServerDescription(result: Record<string, unknown>, protocolVersion: string): InitializeResult {
  const meta = result._meta as Record<string, unknown> | undefined
  const info = (result.serverInfo ?? meta?.[META.serverInfo]) as Implementation | undefined
  const description: InitializeResult = {
    protocolVersion,
    capabilities: result.capabilities as ServerCapabilities,
    serverInfo: typeof info === 'object' && info !== null && typeof info.name === 'string' ? info : { name: 'unknown', version: '0' },
  }
  if (typeof result.instructions === 'string') description.instructions = result.instructions
  return description
}
