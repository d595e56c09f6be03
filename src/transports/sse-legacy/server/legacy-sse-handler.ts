import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { defaults } from '../../../config/defaults.js'
import type { McpServer } from '../../../server/mcp-server.js'
import { acceptRequirement, header, requireAccept, requireJsonContentType } from '../../http/header-checks.js'
import { HttpError } from '../../http/http-error.js'
import { requestExtra } from '../../http/json-rpc-body.js'
import { OriginPolicy } from '../../http/origin-policy.js'
import { readJsonBody } from '../../http/read-json-body.js'
import { sendHttpError } from '../../http/send-http-error.js'
import { SseWriter } from '../../http/sse-writer.js'
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
}

/**
 * The 2024-11-05 HTTP+SSE server pair, served beside Streamable HTTP for older clients: GET on
 * the SSE path opens a session whose first event names the POST endpoint; POSTs there get 202
 * and their answers travel on the stream.
 * @see https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
 */
export class LegacySseHandler {
  readonly #server: McpServer
  readonly #policy: OriginPolicy
  readonly #options: Required<Omit<LegacySseOptions, 'allowedOrigins' | 'allowedHosts'>>
  readonly #sessions = new Map<string, LegacySseTransport>()

  constructor(server: McpServer, options: LegacySseOptions) {
    this.#server = server
    this.#policy = new OriginPolicy(options)
    this.#options = {
      messagesPath: options.messagesPath ?? defaults.legacySse.messagesPath,
      maxBodyBytes: options.maxBodyBytes ?? defaults.streamableHttp.maxBodyBytes,
      keepAliveMs: options.keepAliveMs ?? defaults.streamableHttp.keepAliveMs,
      maxSessions: options.maxSessions ?? defaults.streamableHttp.maxSessions,
    }
  }

  /** GET on the SSE path: open a session. */
  async handleStream(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      this.#policy.check(header(req.headers, 'host'), header(req.headers, 'origin'))
      if (req.method !== 'GET') throw new HttpError(405, 'Method Not Allowed', { headers: { Allow: 'GET' } })
      requireAccept(req.headers, ACCEPT_STREAM)
      if (this.#sessions.size >= this.#options.maxSessions) throw new HttpError(503, 'Service Unavailable: too many sessions')
      const sessionId = randomUUID()
      const writer = new SseWriter(res, { keepAliveMs: this.#options.keepAliveMs, flush: true })
      const transport = new LegacySseTransport(sessionId, writer)
      this.#sessions.set(sessionId, transport)
      const session = await this.#server.connect(transport)
      const previous = session.onclose
      session.onclose = () => {
        previous?.()
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
      const transport = this.#sessions.get(sessionId)
      if (transport === undefined) throw new HttpError(404, 'Not Found: unknown or ended session')
      const body = parsedBody === undefined ? await readJsonBody(req, this.#options.maxBodyBytes) : parsedBody
      const extra = requestExtra(req)
      res.writeHead(202, { 'Content-Type': 'text/plain' }).end('Accepted')
      transport.deliver(body, extra)
    } catch (error) {
      sendHttpError(res, error)
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((t) => t.close()))
  }
}
