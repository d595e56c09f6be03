import type { IncomingMessage, ServerResponse } from 'node:http'
import { ErrorCode, JSONRPC_VERSION, JsonRpcError, classifyMessage, errorResponse, salvageId, type JsonRpcRequest } from '../../../jsonrpc/index.js'
import { HttpError } from '../../../net/http-error.js'
import type { AuthInfo } from '../../../protocol/context.js'
import type { RequestMeta, SessionHost } from '../../../session-host/session-host.js'
import { endSoon } from '../end-soon.js'
import { markOpenEndedStream } from '../open-ended-stream.js'
import { sessionOwner } from '../session-owner.js'
import { checkSessionlessHeaders } from './sessionless-headers.js'
import { SessionlessReply } from './sessionless-reply.js'
import { paramHeadersOf } from '../../../schema/x-mcp-header.js'
import { checkParamHeaders } from '../tool-param-headers.js'

export interface SessionlessEndpointOptions {
  /** false on the JSON-only endpoint: notifications are dropped, subscriptions/listen is not served. */
  allowSse: boolean
  keepAliveMs: number
  /** Most open subscriptions/listen streams, in all and per principal (or client address). */
  maxListenStreams: number
  maxListenStreamsPerPrincipal: number
}

type AuthenticatedRequest = IncomingMessage & { auth?: AuthInfo }

/** The HTTP status of a JSON-RPC error on the sessionless path. */
function statusOf(code: number): number {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400
    default:
      return 200
  }
}

/**
 * The HTTP side of the sessionless revision (2026-07-28), for a body already read and routed here:
 * one JSON-RPC message per POST, checked in the order the revision gives (the `_meta` → the
 * headers against the body → the revision and the method), served by the McpServer with no
 * session, and answered as JSON or SSE. Refusals carry the request's id and their HTTP status
 * (400, or 404 for a method the revision does not have).
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 */
export class SessionlessEndpoint {
  readonly #server: SessionHost
  readonly #options: SessionlessEndpointOptions
  readonly #listeners = new Map<string, number>()
  #listening = 0

  constructor(server: SessionHost, options: SessionlessEndpointOptions) {
    this.#server = server
    this.#options = options
  }

  /** Open subscriptions/listen streams on this endpoint. */
  get listenStreams(): number {
    return this.#listening
  }

  /** Serve one POST body; HttpErrors it throws are answered by the caller. */
  handle(req: AuthenticatedRequest, res: ServerResponse, body: unknown): void {
    if (Array.isArray(body)) throw new HttpError(400, 'Invalid Request: protocol version 2026-07-28 has no JSON-RPC batches', { rpcCode: ErrorCode.InvalidRequest })
    let classified
    try {
      classified = classifyMessage(body)
    } catch (error) {
      const rpc = JsonRpcError.from(error)
      throw new HttpError(400, rpc.message, { rpcCode: rpc.code, id: salvageId((body as { id?: unknown } | null)?.id) })
    }
    if (classified.kind === 'notification') {
      // no client notification means anything over HTTP in this revision (cancelling is closing the stream)
      endSoon(res.writeHead(202))
      return
    }
    if (classified.kind === 'response')
      throw new HttpError(400, 'Invalid Request: a client sends no responses in protocol version 2026-07-28', { rpcCode: ErrorCode.InvalidRequest })
    const request = classified.message
    let meta: RequestMeta
    try {
      meta = this.#server.readStatelessMeta(request.params)
      checkSessionlessHeaders(req.headers, request, meta.protocolVersion)
      if (request.method === 'tools/call') this.#checkToolHeaders(req, request)
      this.#server.checkStateless(meta, request.method)
      if (request.method === 'subscriptions/listen' && !this.#options.allowSse) {
        throw new JsonRpcError(ErrorCode.MethodNotFound, 'Method not found: subscriptions/listen needs a stream; use the Streamable HTTP endpoint')
      }
    } catch (error) {
      const rpc = JsonRpcError.from(error)
      throw new HttpError(statusOf(rpc.code) === 404 ? 404 : 400, rpc.message, { rpcCode: rpc.code, id: request.id, data: rpc.data })
    }
    if (request.method === 'subscriptions/listen') return this.#listen(req, res, request, meta)
    this.#server.admitStateless?.(req.auth)
    this.#serve(req, res, request, meta)
  }

  /** A tool that mirrors parameters into `Mcp-Param-*` headers: each header against its value. */
  #checkToolHeaders(req: AuthenticatedRequest, request: JsonRpcRequest): void {
    const name = request.params?.name
    const tool = typeof name === 'string' ? this.#server.getTool(name) : undefined
    if (tool === undefined) return
    const params = paramHeadersOf(tool.inputSchema)
    if (params.length > 0) checkParamHeaders(req.headers, params, request.params?.arguments)
  }

  #serve(req: AuthenticatedRequest, res: ServerResponse, request: JsonRpcRequest, meta: RequestMeta, onclose?: () => void): void {
    const reply = new SessionlessReply(req, res, { allowSse: this.#options.allowSse, keepAliveMs: this.#options.keepAliveMs })
    reply.onclose = onclose
    // the id only: a listen stream held open keeps nothing else of its request alive
    const id = request.id
    this.#server.serveStateless(request, meta, reply).then(
      (result) => reply.finish({ jsonrpc: JSONRPC_VERSION, id, result }, 200),
      (error: unknown) => {
        if (reply.cancelled) return
        const rpc = JsonRpcError.from(error)
        reply.finish(errorResponse(id, rpc), statusOf(rpc.code))
      },
    )
  }

  /** A subscriptions/listen stream, counted against the caps while it is open. */
  #listen(req: AuthenticatedRequest, res: ServerResponse, request: JsonRpcRequest, meta: RequestMeta): void {
    const owner = sessionOwner(req)
    const own = this.#listeners.get(owner) ?? 0
    if (own >= this.#options.maxListenStreamsPerPrincipal) {
      throw new HttpError(429, 'Too Many Requests: too many open subscriptions/listen streams for this client', { headers: { 'Retry-After': '60' }, id: request.id })
    }
    if (this.#listening >= this.#options.maxListenStreams) {
      throw new HttpError(503, 'Service Unavailable: too many open subscriptions/listen streams', { headers: { 'Retry-After': '60' }, id: request.id })
    }
    this.#listeners.set(owner, own + 1)
    this.#listening++
    markOpenEndedStream(res)
    this.#serve(req, res, request, meta, () => {
      this.#listening--
      const left = (this.#listeners.get(owner) ?? 1) - 1
      if (left <= 0) this.#listeners.delete(owner)
      else this.#listeners.set(owner, left)
    })
  }
}
