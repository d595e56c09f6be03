import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { defaults } from '../../../config/defaults.js'
import type { AuthInfo } from '../../../protocol/context.js'
import type { SessionHost } from '../../../session-host/session-host.js'
import { acceptRequirement, header, requireAccept, requireJsonContentType } from '../../http/header-checks.js'
import { HttpError } from '../../../net/http-error.js'
import { requestExtra } from '../../http/json-rpc-body.js'
import { OriginPolicy } from '../../http/origin-policy.js'
import { noteMcpCall } from '../../../observe/note-mcp-call.js'
import { readJsonBody } from '../../../net/read-json-body.js'
import { sendHttpError } from '../../../net/send-http-error.js'
import { SseWriter } from '../../http/sse-writer.js'
import { SessionLimits, type LimitedSession } from '../../http/session-limits.js'
import { sessionOwner } from '../../http/session-owner.js'
import { LegacySseTransport } from './legacy-sse-transport.js'

const ACCEPT_STREAM = acceptRequirement(['text/event-stream'])

export interface LegacySseOptions {
  allowedHosts: readonly string[]
  allowedOrigins?: readonly string[] | undefined
  /** Path the `endpoint` event points at; clients POST there with ?sessionId=… */
  messagesPath?: string
  maxBodyBytes?: number
  keepAliveMs?: number
  maxSessions?: number
  /** Most live sessions of one principal (or, without auth, one client address). */
  maxSessionsPerPrincipal?: number
}

interface LegacySession extends LimitedSession {
  transport: LegacySseTransport
}

/**
 * The 2024-11-05 HTTP+SSE server pair, served beside Streamable HTTP for older clients: GET on
 * the SSE path opens a session whose first event names the POST endpoint; POSTs there get 202
 * and their answers travel on the stream.
 * @see https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
 */
export class LegacySseHandler {
  readonly #server: SessionHost
  readonly #policy: OriginPolicy
  readonly #options: Required<Omit<LegacySseOptions, 'allowedOrigins' | 'allowedHosts'>>
  readonly #sessions = new Map<string, LegacySession>()
  readonly #limits: SessionLimits<LegacySession>

  constructor(server: SessionHost, options: LegacySseOptions) {
    this.#server = server
    this.#policy = new OriginPolicy(options)
    this.#options = {
      messagesPath: options.messagesPath ?? defaults.legacySse.messagesPath,
      maxBodyBytes: options.maxBodyBytes ?? defaults.streamableHttp.maxBodyBytes,
      keepAliveMs: options.keepAliveMs ?? defaults.streamableHttp.keepAliveMs,
      maxSessions: options.maxSessions ?? defaults.streamableHttp.maxSessions,
      maxSessionsPerPrincipal: options.maxSessionsPerPrincipal ?? defaults.streamableHttp.maxSessionsPerPrincipal,
    }
    this.#limits = new SessionLimits({
      maxSessions: this.#options.maxSessions,
      maxSessionsPerOwner: this.#options.maxSessionsPerPrincipal,
      minIdleMs: defaults.streamableHttp.evictIdleAfterMs,
    })
  }

  /** Live sessions in this process (each one an open SSE stream). */
  get sessionCount(): number {
    return this.#sessions.size
  }

  /** GET on the SSE path: open a session. */
  async handleStream(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      this.#policy.check(header(req.headers, 'host'), header(req.headers, 'origin'))
      if (req.method !== 'GET') throw new HttpError(405, 'Method Not Allowed', { headers: { Allow: 'GET' } })
      requireAccept(req.headers, ACCEPT_STREAM)
      const owner = sessionOwner(req)
      this.#limits.admit(owner, this.#sessions.values(), this.#sessions.size)
      // before the stream opens: the host may refuse (the gateway's caps on its children)
      const session = this.#server.createSession({ authInfo: (req as IncomingMessage & { auth?: AuthInfo }).auth })
      const sessionId = randomUUID()
      const writer = new SseWriter(res, { keepAliveMs: this.#options.keepAliveMs, flush: true })
      const transport = new LegacySseTransport(sessionId, writer)
      // The stream is the session: it is never "busy" for eviction; the least recently used goes first.
      const entry: LegacySession = { transport, owner, lastSeen: Date.now(), busy: false, close: () => void transport.close() }
      this.#sessions.set(sessionId, entry)
      this.#limits.added(entry)
      await session.connect(transport)
      const previous = session.onclose
      session.onclose = () => {
        previous?.()
        this.#limits.removed(entry)
        this.#sessions.delete(sessionId)
      }
      writer.event(`${this.#options.messagesPath}?sessionId=${encodeURIComponent(sessionId)}`, undefined, 'endpoint')
    } catch (error) {
      sendHttpError(res, error)
    }
  }

  /** POST on the messages path: deliver one message (or batch) to its session. */
  async handleMessage(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    try {
      this.#policy.check(header(req.headers, 'host'), header(req.headers, 'origin'))
      if (req.method !== 'POST') throw new HttpError(405, 'Method Not Allowed', { headers: { Allow: 'POST' } })
      requireJsonContentType(req.headers)
      const sessionId = new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId')
      if (sessionId === null) throw new HttpError(400, 'Bad Request: sessionId query parameter is required')
      const entry = this.#sessions.get(sessionId)
      // Another principal's session answers as if it did not exist.
      if (entry === undefined || entry.owner !== sessionOwner(req)) throw new HttpError(404, 'Not Found: unknown or ended session')
      entry.lastSeen = Date.now()
      const transport = entry.transport
      const body = parsedBody === undefined ? await readJsonBody(req, this.#options.maxBodyBytes) : parsedBody
      noteMcpCall(req, body)
      const extra = requestExtra(req)
      res.writeHead(202, { 'Content-Type': 'text/plain' }).end('Accepted')
      transport.deliver(body, extra)
    } catch (error) {
      sendHttpError(res, error)
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((entry) => entry.transport.close()))
  }
}
