import type { IncomingMessage, ServerResponse } from 'node:http'
import type { JsonRpcMessage } from '../../../jsonrpc/index.js'
import type { AuthInfo } from '../../../protocol/context.js'
import type { SessionHost } from '../../../session-host/session-host.js'
import { SESSION_STATE_METHODS } from '../../../sessions/shared-session-state.js'
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION } from '../../../schema/versions.js'
import { acceptRequirement, header, readProtocolVersionHeader, requireAccept, requireJsonContentType } from '../../http/header-checks.js'
import { HttpError } from '../../../net/http-error.js'
import { classifyBody, refuseBatchUnlessAllowed, requestExtra } from '../../http/json-rpc-body.js'
import { OriginPolicy } from '../../http/origin-policy.js'
import { endSoon } from '../../http/end-soon.js'
import { noteMcpCall } from '../../../observe/note-mcp-call.js'
import { readJsonBody } from '../../../net/read-json-body.js'
import { sendHttpError } from '../../../net/send-http-error.js'
import { sessionOwner } from '../../http/session-owner.js'
import { asHttpFailure, saveFailure } from '../../http/storage-unavailable.js'
import { streamOfEventId } from '../../../sessions/event-store.js'
import type { LiveSession } from './live-session.js'
import { SessionTable } from './session-table.js'
import { StatelessPosts } from './stateless-posts.js'
import { forwardFailure, SessionForwarder } from './session-forwarder.js'
import { resolveStreamableHttpOptions, type ResolvedStreamableHttpOptions, type StreamableHttpOptions } from './streamable-http-options.js'
import { SessionlessEndpoint } from '../../http/sessionless/sessionless-endpoint.js'
import { isSessionlessRequest } from '../../http/sessionless/sessionless-headers.js'
import { isStatelessRevision } from '../../../schema/revisions.js'

const ACCEPT_POST = acceptRequirement(['application/json', 'text/event-stream'])
const ACCEPT_GET = acceptRequirement(['text/event-stream'])

const NO_CANCELS: JsonRpcMessage[] = []

/** Requests may carry verified credentials set by an auth layer in front (issue order 4). */
type AuthenticatedRequest = IncomingMessage & { auth?: AuthInfo }

const ALLOW = 'GET, POST, DELETE'

/** 2026-07-28 has no GET stream and no session to delete: 405, as the revision asks. */
function refuseStatelessRevision(req: IncomingMessage): void {
  if (isStatelessRevision(header(req.headers, 'mcp-protocol-version'))) {
    throw new HttpError(405, 'Method Not Allowed: protocol version 2026-07-28 has no GET stream and no sessions; POST subscriptions/listen instead', { headers: { Allow: 'POST' } })
  }
}
/**
 * The Streamable HTTP server transport, independent of any framework: `handle(req, res)` serves
 * one request on the MCP endpoint. Mount it in Koa with `streamableHttpKoa`, or call it from a
 * plain `node:http` server.
 *
 * @example
 * const mcp = new StreamableHttpHandler(createDemoServer(), { allowedHosts: ['localhost', '127.0.0.1'] })
 * http.createServer((req, res) => mcp.handle(req, res)).listen(3000, '127.0.0.1')
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 */
export class StreamableHttpHandler {
  readonly #options: ResolvedStreamableHttpOptions
  readonly #policy: OriginPolicy
  /** The sessions of the handshake era (none in stateless mode). */
  readonly #sessions: SessionTable
  /** POSTs that name no session: stateless mode, and pings. */
  readonly #statelessPosts: StatelessPosts
  /** 2026-07-28 requests: no session at all. */
  readonly #sessionless: SessionlessEndpoint

  constructor(server: SessionHost, options: StreamableHttpOptions) {
    this.#options = resolveStreamableHttpOptions(options)
    this.#policy = new OriginPolicy({ allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins })
    const o = this.#options
    const { keepAliveMs, retryMs, preferJsonResponse } = o
    this.#sessions = new SessionTable(server, {
      sessionStore: o.sessionStore,
      eventStore: o.eventStore,
      bus: o.stateless ? undefined : options.bus,
      sessionIdleMs: o.sessionIdleMs,
      maxSessions: o.maxSessions,
      maxSessionsPerPrincipal: o.maxSessionsPerPrincipal,
      sweep: !o.stateless,
      transports: { keepAliveMs, retryMs, preferJsonResponse },
    })
    this.#statelessPosts = new StatelessPosts(server, { keepAliveMs, retryMs, preferJsonResponse })
    this.#sessionless = new SessionlessEndpoint(server, {
      allowSse: true,
      keepAliveMs: this.#options.keepAliveMs,
      maxListenStreams: this.#options.maxListenStreams,
      maxListenStreamsPerPrincipal: this.#options.maxListenStreamsPerPrincipal,
    })
  }

  /** Live sessions in this process. */
  get sessionCount(): number {
    return this.#sessions.size
  }

  /** Open GET streams of sessions in this process (counted when asked: for a metrics scrape, not the request path). */
  get standaloneStreamCount(): number {
    return this.#sessions.standaloneStreams
  }

  /** Open 2026-07-28 subscriptions/listen streams. */
  get listenStreamCount(): number {
    return this.#sessionless.listenStreams
  }

  /** Serve one HTTP request. Never throws: every failure is answered in the protocol's format. */
  async handle(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    try {
      this.#policy.check(header(req.headers, 'host'), header(req.headers, 'origin'))
      switch (req.method) {
        case 'POST':
          return await this.#post(req as AuthenticatedRequest, res, parsedBody)
        case 'GET':
          return await this.#get(req, res)
        case 'DELETE':
          return await this.#delete(req, res)
        default:
          throw new HttpError(405, 'Method Not Allowed', { headers: { Allow: this.#options.stateless ? 'POST' : ALLOW } })
      }
    } catch (error) {
      sendHttpError(res, asHttpFailure(error))
    }
  }

  /**
   * End every session and stop the idle sweep. With a shared store, only this process's copies
   * end: the sessions live on for the other processes.
   */
  async close(): Promise<void> {
    await this.#statelessPosts.close()
    await this.#sessions.close()
  }

  async #post(req: AuthenticatedRequest, res: ServerResponse, parsedBody: unknown): Promise<void> {
    requireAccept(req.headers, ACCEPT_POST)
    requireJsonContentType(req.headers)
    const body = parsedBody === undefined ? await readJsonBody(req, this.#options.maxBodyBytes) : parsedBody
    noteMcpCall(req, body)
    // one endpoint, two eras: 2026-07-28 requests carry everything they need; the rest negotiated at initialize
    if (isSessionlessRequest(req.headers, body)) return this.#sessionless.handle(req, res, body)
    const versionHeader = readProtocolVersionHeader(req.headers)

    const { batch, messages: parsed, requestIds } = classifyBody(body)
    let cancels = NO_CANCELS
    let initialize = false
    let changesState = false
    let answers = false
    for (const message of parsed) {
      if (!('method' in message)) {
        answers = true
      } else if ('id' in message) {
        if (message.method === 'initialize') initialize = true
        else if (SESSION_STATE_METHODS.has(message.method)) changesState = true
      } else if (message.method === 'notifications/cancelled') {
        if (cancels === NO_CANCELS) cancels = []
        cancels.push(message)
      } else if (message.method === 'notifications/progress') {
        answers = true
      }
    }
    if (initialize && batch) throw new HttpError(400, 'Invalid Request: initialize must not be part of a batch', { rpcCode: -32600 })

    const extra = requestExtra(req)

    // a liveness check needs no session: a ping that names none is answered, as the SDK v2 server does
    if (!this.#options.stateless && onlyPings(parsed) && header(req.headers, 'mcp-session-id') === undefined) {
      return this.#statelessPosts.postPooled(res, parsed, batch, requestIds, versionHeader ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION, extra)
    }

    if (this.#options.stateless) {
      return this.#statelessPosts.post(res, body, parsed, batch, requestIds, versionHeader ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION, extra)
    }

    try {
      const sessionId = header(req.headers, 'mcp-session-id')
      const owner = sessionOwner(req)
      const cluster = this.#sessions.cluster
      if (cluster !== undefined) await cluster.link.ready()
      let live: LiveSession
      let headers: Record<string, string> = {}
      if (initialize && sessionId === undefined) {
        live = await this.#sessions.create(owner, req.auth)
        headers = { 'Mcp-Session-Id': live.transport.sessionId! }
      } else {
        live = await this.#sessions.find(sessionId, owner)
      }
      live.lastSeen = Date.now()
      refuseBatchUnlessAllowed(batch, live.session.protocolVersion)
      // the client's answers to requests another process sent go there
      const messages = answers && cluster !== undefined ? await cluster.routeAnswers(live, parsed) : parsed
      if (requestIds.length === 0) {
        endSoon(res.writeHead(202))
        if (messages.length > 0) live.session.receiveMessages(messages, batch, extra)
        this.#cancel(live, cancels)
        return
      }
      const stream = live.transport.openExchange(res, requestIds, batch, headers)
      live.session.receiveMessages(messages, batch, extra)
      // a pinned session another process runs: its answer waits until that process took the requests
      if (live.session instanceof SessionForwarder) stream.hold(live.session.forwarded, forwardFailure)
      this.#cancel(live, cancels)
      // the handlers of initialize and of the state-changing methods ran (synchronously): the
      // answer waits until the store has what they changed, so the next request may go anywhere
      if ((initialize || changesState) && this.#sessions.stored) stream.hold(this.#sessions.save(live, changesState), saveFailure)
    } catch (error) {
      throw asHttpFailure(error, requestIds.length === 1 ? requestIds[0]! : null)
    }
  }

  #cancel(live: LiveSession, cancels: readonly JsonRpcMessage[]): void {
    if (cancels.length === 0) return
    const cluster = this.#sessions.cluster
    if (cluster !== undefined) return cluster.cancel(live, cancels)
    for (const message of cancels) {
      const requestId = (message as { params?: { requestId?: unknown } }).params?.requestId
      if (typeof requestId === 'string' || typeof requestId === 'number') live.transport.cancelled(requestId)
    }
  }

  async #get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    refuseStatelessRevision(req)
    if (this.#options.stateless) throw new HttpError(405, 'Method Not Allowed: this endpoint is stateless (no GET stream)', { headers: { Allow: 'POST' } })
    requireAccept(req.headers, ACCEPT_GET)
    readProtocolVersionHeader(req.headers)
    const cluster = this.#sessions.cluster
    if (cluster !== undefined) await cluster.link.ready()
    const live = await this.#sessions.find(header(req.headers, 'mcp-session-id'), sessionOwner(req), true)
    live.lastSeen = Date.now()
    const lastEventId = header(req.headers, 'last-event-id')
    if (lastEventId !== undefined) {
      const streamId = streamOfEventId(lastEventId)
      if (streamId === undefined || !live.transport.ownsStream(streamId)) throw new HttpError(400, 'Bad Request: unknown Last-Event-ID for this session')
      const sessionId = live.transport.sessionId!
      await live.transport.resume(res, streamId, () => this.#options.eventStore.after(sessionId, lastEventId))
      return
    }
    if (live.transport.hasStandaloneStream) throw new HttpError(409, 'Conflict: this session already has an open GET stream')
    await live.transport.openStandalone(res)
  }

  async #delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    refuseStatelessRevision(req)
    if (this.#options.stateless) throw new HttpError(405, 'Method Not Allowed: this endpoint is stateless (no sessions)', { headers: { Allow: 'POST' } })
    readProtocolVersionHeader(req.headers)
    const live = await this.#sessions.find(header(req.headers, 'mcp-session-id'), sessionOwner(req))
    await this.#sessions.end(live)
    res.writeHead(200).end()
  }
}

/** Whether every message of a POST is a `ping` request. */
function onlyPings(messages: readonly JsonRpcMessage[]): boolean {
  return messages.length > 0 && messages.every((message) => 'id' in message && 'method' in message && message.method === 'ping')
}
