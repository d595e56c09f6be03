import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { defaults } from '../../../config/defaults.js'
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/index.js'
import type { AuthInfo } from '../../../protocol/context.js'
import type { MessageExtra } from '../../../protocol/transport.js'
import type { McpServer } from '../../../server/mcp-server.js'
import type { ServerSession } from '../../../server/server-session.js'
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION } from '../../../schema/versions.js'
import { acceptRequirement, header, readProtocolVersionHeader, requireAccept, requireJsonContentType } from '../../http/header-checks.js'
import { HttpError } from '../../../net/http-error.js'
import { classifyBody, refuseBatchUnlessAllowed, requestExtra } from '../../http/json-rpc-body.js'
import { OriginPolicy } from '../../http/origin-policy.js'
import { endSoon } from '../../http/end-soon.js'
import { readJsonBody } from '../../../net/read-json-body.js'
import { sendHttpError } from '../../http/send-http-error.js'
import { SharedStatelessSessions, hasSessionScopedRequest } from '../../http/shared-stateless-sessions.js'
import { SessionLimits, type LimitedSession } from '../../http/session-limits.js'
import { sessionOwner } from '../../http/session-owner.js'
import { InMemoryEventStore, type EventStore } from './event-store.js'
import type { SessionStore } from './session-store.js'
import { OutboundStream, type StreamHost } from './outbound-stream.js'
import { SessionTransport, type SessionTransportOptions } from './session-transport.js'
import { StatelessEndpoint } from '../../http/stateless-endpoint.js'
import { isStatelessEraRequest } from '../../http/stateless-headers.js'
import { isStatelessRevision } from '../../../schema/revisions.js'

const ACCEPT_POST = acceptRequirement(['application/json', 'text/event-stream'])
const ACCEPT_GET = acceptRequirement(['text/event-stream'])

export interface StreamableHttpOptions {
  /** No sessions, no GET stream: every POST stands alone (the server is still built once). */
  stateless?: boolean
  /** Answer with application/json when possible (default), or always with SSE. */
  preferJsonResponse?: boolean
  maxBodyBytes?: number
  sessionIdleMs?: number
  maxSessions?: number
  /** Most live sessions of one principal (or, without auth, one client address). */
  maxSessionsPerPrincipal?: number
  /** Most open 2026-07-28 subscriptions/listen streams, in all and per principal. */
  maxListenStreams?: number
  maxListenStreamsPerPrincipal?: number
  keepAliveMs?: number
  retryMs?: number
  /** Hosts accepted in the Host header (and, by default, in Origin). Required. */
  allowedHosts: readonly string[]
  /** Origins accepted; default: those whose host is an allowed host. */
  allowedOrigins?: readonly string[] | undefined
  /**
   * Where session state is kept for other processes (or handlers) to pick a session up. None by
   * default: a live session is found in this handler's own memory, so a copy there would only cost.
   */
  sessionStore?: SessionStore | undefined
  eventStore?: EventStore
}

/** A session this process serves, with what the limits need of it (a class: one per session, no closures). */
class LiveSession implements LimitedSession {
  readonly session: ServerSession
  readonly transport: SessionTransport
  readonly owner: string
  lastSeen = Date.now()

  constructor(session: ServerSession, transport: SessionTransport, owner: string) {
    this.session = session
    this.transport = transport
    this.owner = owner
  }

  get busy(): boolean {
    return this.transport.busy
  }

  close(): void {
    void this.session.close()
  }
}

/** Requests may carry verified credentials set by an auth layer in front (issue order 4). */
type AuthenticatedRequest = IncomingMessage & { auth?: AuthInfo }

const ALLOW = 'GET, POST, DELETE'

/** 2026-07-28 has no GET stream and no session to delete: 405, as the revision asks. */
function refuseStatelessRevision(req: IncomingMessage): void {
  if (isStatelessRevision(header(req.headers, 'mcp-protocol-version'))) {
    throw new HttpError(405, 'Method Not Allowed: protocol version 2026-07-28 has no GET stream and no sessions; POST subscriptions/listen instead', { headers: { Allow: 'POST' } })
  }
}
const NO_HEADERS: Record<string, string> = {}
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
  readonly #server: McpServer
  readonly #options: Required<Omit<StreamableHttpOptions, 'allowedOrigins' | 'sessionStore'>> & Pick<StreamableHttpOptions, 'allowedOrigins' | 'sessionStore'>
  readonly #policy: OriginPolicy
  readonly #sessions = new Map<string, LiveSession>()
  /** Stateless mode: one long-lived session per protocol version. */
  readonly #shared: SharedStatelessSessions
  readonly #sweep: NodeJS.Timeout | undefined
  readonly #limits: SessionLimits<LiveSession>
  /** 2026-07-28 requests: no session at all. */
  readonly #statelessRevision: StatelessEndpoint
  /** What every session's transport shares: one object for all sessions, one for stateless mode's. */
  readonly #sessionTransports: SessionTransportOptions
  readonly #statelessTransports: SessionTransportOptions
  /** The streams of stateless mode's shared sessions: nothing stored, never primed. */
  readonly #unstoredStreams: StreamHost

  constructor(server: McpServer, options: StreamableHttpOptions) {
    const d = defaults.streamableHttp
    this.#server = server
    this.#options = {
      stateless: false,
      preferJsonResponse: d.preferJsonResponse,
      maxBodyBytes: d.maxBodyBytes,
      sessionIdleMs: d.sessionIdleMs,
      maxSessions: d.maxSessions,
      maxSessionsPerPrincipal: d.maxSessionsPerPrincipal,
      maxListenStreams: d.maxListenStreams,
      maxListenStreamsPerPrincipal: d.maxListenStreamsPerPrincipal,
      keepAliveMs: d.keepAliveMs,
      retryMs: d.retryMs,
      eventStore: new InMemoryEventStore(),
      ...options,
    }
    this.#policy = new OriginPolicy({ allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins })
    const { keepAliveMs, retryMs, preferJsonResponse } = this.#options
    this.#sessionTransports = { eventStore: this.#options.eventStore, keepAliveMs, retryMs, preferJsonResponse, ended: (transport) => this.#ended(transport) }
    this.#statelessTransports = { eventStore: undefined, keepAliveMs, retryMs, preferJsonResponse }
    this.#unstoredStreams = { sessionId: undefined, eventStore: undefined, keepAliveMs, retryMs, prime: false }
    this.#shared = new SharedStatelessSessions(server)
    this.#statelessRevision = new StatelessEndpoint(server, {
      allowSse: true,
      keepAliveMs: this.#options.keepAliveMs,
      maxListenStreams: this.#options.maxListenStreams,
      maxListenStreamsPerPrincipal: this.#options.maxListenStreamsPerPrincipal,
    })
    this.#limits = new SessionLimits({
      maxSessions: this.#options.maxSessions,
      maxSessionsPerOwner: this.#options.maxSessionsPerPrincipal,
      minIdleMs: defaults.streamableHttp.evictIdleAfterMs,
    })
    if (!this.#options.stateless) {
      this.#sweep = setInterval(() => this.#expireIdle(), Math.min(d.sessionSweepMs, this.#options.sessionIdleMs))
      this.#sweep.unref()
    }
  }

  /** Live sessions in this process. */
  get sessionCount(): number {
    return this.#sessions.size
  }

  /** Open 2026-07-28 subscriptions/listen streams. */
  get listenStreamCount(): number {
    return this.#statelessRevision.listenStreams
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
      sendHttpError(res, error)
    }
  }

  /** End every session and stop the idle sweep. */
  async close(): Promise<void> {
    if (this.#sweep !== undefined) clearInterval(this.#sweep)
    await this.#shared.close()
    await Promise.all([...this.#sessions.values()].map((live) => live.session.close()))
  }

  async #post(req: AuthenticatedRequest, res: ServerResponse, parsedBody: unknown): Promise<void> {
    requireAccept(req.headers, ACCEPT_POST)
    requireJsonContentType(req.headers)
    const body = parsedBody === undefined ? await readJsonBody(req, this.#options.maxBodyBytes) : parsedBody
    // one endpoint, two eras: 2026-07-28 requests carry everything they need; the rest negotiated at initialize
    if (isStatelessEraRequest(req.headers, body)) return this.#statelessRevision.handle(req, res, body)
    const versionHeader = readProtocolVersionHeader(req.headers)

    const { batch, messages: parsed, requestIds } = classifyBody(body)
    const cancelled: RequestId[] = []
    let initialize = false
    for (const message of parsed) {
      if (!('method' in message)) continue
      if ('id' in message) {
        if (message.method === 'initialize') initialize = true
      } else if (message.method === 'notifications/cancelled') {
        const requestId = message.params?.requestId
        if (typeof requestId === 'string' || typeof requestId === 'number') cancelled.push(requestId)
      }
    }
    if (initialize && batch) throw new HttpError(400, 'Invalid Request: initialize must not be part of a batch', { rpcCode: -32600 })

    const extra = requestExtra(req)

    if (this.#options.stateless) {
      const protocolVersion = versionHeader ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION
      if (hasSessionScopedRequest(parsed)) return this.#postStateless(res, body, batch, requestIds, protocolVersion, extra)
      return this.#postShared(res, parsed, batch, requestIds, protocolVersion, extra)
    }

    const sessionId = header(req.headers, 'mcp-session-id')
    const owner = sessionOwner(req)
    let live: LiveSession
    let headers: Record<string, string> = {}
    if (initialize && sessionId === undefined) {
      live = await this.#createSession(owner)
      headers = { 'Mcp-Session-Id': live.transport.sessionId! }
    } else {
      live = await this.#find(sessionId, owner)
    }
    live.lastSeen = Date.now()
    refuseBatchUnlessAllowed(batch, live.session.protocolVersion)
    if (requestIds.length === 0) {
      endSoon(res.writeHead(202))
      live.session.receiveMessages(parsed, batch, extra)
      for (const id of cancelled) live.transport.cancelled(id)
      return
    }
    const stream = live.transport.openExchange(res, requestIds, batch, headers)
    if (initialize && this.#options.sessionStore !== undefined) {
      const previous = stream.onfinished
      stream.onfinished = () => {
        previous?.()
        void this.#saveState(live)
      }
    }
    live.session.receiveMessages(parsed, batch, extra)
    for (const id of cancelled) live.transport.cancelled(id)
  }

  /**
   * Stateless requests that change nothing session-wide are served by one long-lived session per
   * protocol version (ids remapped per request), so a stateless POST builds no session at all.
   */
  async #postShared(res: ServerResponse, messages: JsonRpcMessage[], batch: boolean, requestIds: RequestId[], protocolVersion: string, extra: MessageExtra): Promise<void> {
    refuseBatchUnlessAllowed(batch, protocolVersion)
    if (requestIds.length === 0) {
      endSoon(res.writeHead(202))
      return this.#shared.serve(res, messages, batch, protocolVersion, extra, undefined)
    }
    const stream = new OutboundStream(res, requestIds, this.#unstoredStreams, '', NO_HEADERS, {
      batch,
      preferJson: this.#options.preferJsonResponse,
      standalone: false,
    })
    return this.#shared.serve(res, messages, batch, protocolVersion, extra, stream)
  }

  async #postStateless(res: ServerResponse, body: unknown, batch: boolean, requestIds: RequestId[], protocolVersion: string, extra: MessageExtra): Promise<void> {
    refuseBatchUnlessAllowed(batch, protocolVersion)
    const session = this.#server.createSession({ strictLifecycle: false })
    session.restore({ protocolVersion })
    const transport = new SessionTransport(undefined, this.#statelessTransports)
    await session.connect(transport)
    if (requestIds.length === 0) {
      endSoon(res.writeHead(202))
      session.receive(body, extra)
      void session.close()
      return
    }
    const stream = transport.openExchange(res, requestIds, batch, {})
    stream.onfinished = () => void session.close()
    // a client that hangs up ends the work done for it
    res.once('close', () => void session.close())
    session.receive(body, extra)
  }

  async #get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    refuseStatelessRevision(req)
    if (this.#options.stateless) throw new HttpError(405, 'Method Not Allowed: this endpoint is stateless (no GET stream)', { headers: { Allow: 'POST' } })
    requireAccept(req.headers, ACCEPT_GET)
    readProtocolVersionHeader(req.headers)
    const live = await this.#find(header(req.headers, 'mcp-session-id'), sessionOwner(req))
    live.lastSeen = Date.now()
    const lastEventId = header(req.headers, 'last-event-id')
    if (lastEventId !== undefined) {
      const stored = await this.#options.eventStore.after(live.transport.sessionId!, lastEventId)
      if (stored === undefined || !live.transport.ownsStream(stored.streamId)) throw new HttpError(400, 'Bad Request: unknown Last-Event-ID for this session')
      live.transport.resume(res, stored.streamId, stored.events)
      return
    }
    if (live.transport.hasStandaloneStream) throw new HttpError(409, 'Conflict: this session already has an open GET stream')
    live.transport.openStandalone(res)
  }

  async #delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    refuseStatelessRevision(req)
    if (this.#options.stateless) throw new HttpError(405, 'Method Not Allowed: this endpoint is stateless (no sessions)', { headers: { Allow: 'POST' } })
    readProtocolVersionHeader(req.headers)
    const live = await this.#find(header(req.headers, 'mcp-session-id'), sessionOwner(req))
    await live.session.close()
    res.writeHead(200).end()
  }

  /**
   * 400 without a session id; 404 for one that is unknown, ended, or belongs to another principal
   * (the same answer: whether an id exists is not told to whoever does not own it).
   */
  async #find(sessionId: string | undefined, owner: string): Promise<LiveSession> {
    if (sessionId === undefined) throw new HttpError(400, 'Bad Request: Mcp-Session-Id header is required')
    const live = this.#sessions.get(sessionId) ?? (await this.#restore(sessionId, owner))
    if (live === undefined || live.owner !== owner) throw new HttpError(404, 'Not Found: unknown or ended session', { rpcCode: -32001 })
    return live
  }

  async #createSession(owner: string): Promise<LiveSession> {
    this.#limits.admit(owner, this.#sessions.values(), this.#sessions.size)
    return this.#adopt(randomUUID(), owner)
  }

  /** A session another process (or an earlier run) created, found in a shared store; only for its owner. */
  async #restore(sessionId: string, owner: string): Promise<LiveSession | undefined> {
    const state = await this.#options.sessionStore?.get(sessionId)
    if (state === undefined || state.owner !== owner) return undefined
    this.#limits.admit(owner, this.#sessions.values(), this.#sessions.size)
    const live = await this.#adopt(sessionId, owner)
    live.session.restore(state)
    return live
  }

  async #adopt(sessionId: string, owner: string): Promise<LiveSession> {
    const transport = new SessionTransport(sessionId, this.#sessionTransports)
    const session = this.#server.createSession()
    const live = new LiveSession(session, transport, owner)
    ;(this.#options.eventStore as Partial<InMemoryEventStore>).openSession?.(sessionId)
    this.#sessions.set(sessionId, live)
    this.#limits.added(live)
    await session.connect(transport)
    return live
  }

  async #saveState(live: LiveSession): Promise<void> {
    const { session, transport } = live
    const store = this.#options.sessionStore
    if (store === undefined || session.protocolVersion === undefined || transport.sessionId === undefined) return
    await store.set({
      id: transport.sessionId,
      protocolVersion: session.protocolVersion,
      clientCapabilities: session.clientCapabilities ?? {},
      clientInfo: session.clientInfo,
      owner: live.owner,
      createdAt: Date.now(),
    })
  }

  /** A session's transport closed (after its server session learnt of it): forget the session. */
  #ended(transport: SessionTransport): void {
    const sessionId = transport.sessionId!
    const live = this.#sessions.get(sessionId)
    if (live === undefined || live.transport !== transport) return
    this.#limits.removed(live)
    this.#sessions.delete(sessionId)
    void this.#options.sessionStore?.delete(sessionId)
    void this.#options.eventStore.dropSession(sessionId)
  }

  #expireIdle(): void {
    const cutoff = Date.now() - this.#options.sessionIdleMs
    for (const live of this.#sessions.values()) {
      // a session still answering a request, or holding its GET stream, is not idle
      if (live.lastSeen < cutoff && !live.transport.busy) void live.session.close()
    }
  }
}
