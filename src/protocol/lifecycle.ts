import { ErrorCode, JsonRpcError, type JsonRpcRequest } from '../jsonrpc/index.js'
import { HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_PROTOCOL_VERSION, isSupportedProtocolVersion, type ProtocolVersion } from '../schema/versions.js'
import { LocalError } from './errors.js'

/**
 * Server side of version negotiation: answer with the client's version when we speak it, else
 * with our latest (the client then decides whether to continue).
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
 */
export function negotiateProtocolVersion(requested: unknown, supported: readonly string[] = HANDSHAKE_PROTOCOL_VERSIONS): string {
  return typeof requested === 'string' && supported.includes(requested) ? requested : (supported[0] ?? LATEST_HANDSHAKE_PROTOCOL_VERSION)
}

/** Client side: refuse a server that answered with a version we do not speak. */
export function acceptServerProtocolVersion(answered: unknown, supported: readonly string[] = HANDSHAKE_PROTOCOL_VERSIONS): ProtocolVersion {
  if (typeof answered !== 'string' || !supported.includes(answered) || !isSupportedProtocolVersion(answered)) {
    throw new LocalError(
      'unsupported_protocol_version',
      `the server answered protocol version ${JSON.stringify(answered)}, which this client does not support (supported: ${supported.join(', ')})`,
    )
  }
  return answered
}

/** Refuse a request the peer may not send us because it did not declare the capability. */
export function assertPeerDeclared(method: string, declared: boolean, peer: 'client' | 'server'): void {
  if (!declared) {
    throw new LocalError('capability_not_supported', `the ${peer} does not support ${method}: it did not declare the capability for it`)
  }
}

/**
 * Tracks where a server session is in the lifecycle. Before `initialize` only `ping` (and
 * `initialize` itself) may arrive; requests that come too early are refused with -32600.
 */
export class ServerLifecycle {
  #state: 'new' | 'initializing' | 'ready' = 'new'
  readonly #strict: boolean

  /** `strict: false` serves requests without a prior initialize (stateless HTTP). */
  constructor(options: { strict: boolean }) {
    this.#strict = options.strict
  }

  get initialized(): boolean {
    return this.#state !== 'new'
  }

  beforeRequest(request: JsonRpcRequest): void {
    if (request.method === 'initialize') {
      if (this.#state !== 'new' && this.#strict) {
        throw new JsonRpcError(ErrorCode.InvalidRequest, 'Invalid Request: the session is already initialized')
      }
      return
    }
    if (request.method === 'ping' || !this.#strict) return
    if (this.#state === 'new') {
      throw new JsonRpcError(ErrorCode.InvalidRequest, `Invalid Request: ${request.method} before initialize`)
    }
  }

  markInitializing(): void {
    this.#state = 'initializing'
  }

  markReady(): void {
    this.#state = 'ready'
  }
}
