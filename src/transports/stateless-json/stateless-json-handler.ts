import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RequestId } from '../../jsonrpc/index.js'
import type { MessageExtra } from '../../protocol/transport.js'
import { defaults } from '../../config/defaults.js'
import type { SessionHost } from '../../session-host/session-host.js'
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION } from '../../schema/versions.js'
import { acceptRequirement, header, readProtocolVersionHeader, requireAccept, requireJsonContentType } from '../http/header-checks.js'
import { HttpError } from '../../net/http-error.js'
import { classifyBody, refuseBatchUnlessAllowed, requestExtra } from '../http/json-rpc-body.js'
import { OriginPolicy } from '../http/origin-policy.js'
import { endSoon } from '../http/end-soon.js'
import { noteMcpCall } from '../../observe/note-mcp-call.js'
import { readJsonBody } from '../../net/read-json-body.js'
import { sendHttpError } from '../../net/send-http-error.js'
import { PooledSessions, hasSessionScopedRequest } from '../http/pooled-sessions.js'
import { SessionlessEndpoint } from '../http/sessionless/sessionless-endpoint.js'
import { isSessionlessRequest } from '../http/sessionless/sessionless-headers.js'
import { JsonAnswer } from './json-answer.js'
import { JsonExchangeTransport } from './json-exchange-transport.js'

const ACCEPT_JSON = acceptRequirement(['application/json'])

export interface StatelessJsonOptions {
  allowedHosts: readonly string[]
  allowedOrigins?: readonly string[] | undefined
  maxBodyBytes?: number
}

/**
 * A stateless JSON-only MCP endpoint: POST only, application/json in and out, no sessions, no
 * SSE. POSTs are served by one long-lived session per protocol version (ids remapped per
 * request; a request that changes session state gets a throwaway session); requests need no
 * prior initialize, the protocol version comes from MCP-Protocol-Version (2025-03-26 when absent).
 * Server → client requests cannot travel here, so tools that sample or elicit report an error;
 * 2026-07-28 requests are served as on the Streamable HTTP endpoint (their questions to the client
 * are input-required results), without notifications and without subscriptions/listen.
 *
 * @example
 * const rest = new StatelessJsonHandler(server, { allowedHosts: ['localhost', '127.0.0.1'] })
 * http.createServer((req, res) => rest.handle(req, res))
 */
export class StatelessJsonHandler {
  readonly #server: SessionHost
  readonly #policy: OriginPolicy
  readonly #maxBodyBytes: number
  readonly #pooled: PooledSessions
  readonly #sessionless: SessionlessEndpoint

  constructor(server: SessionHost, options: StatelessJsonOptions) {
    this.#server = server
    this.#policy = new OriginPolicy(options)
    this.#maxBodyBytes = options.maxBodyBytes ?? defaults.streamableHttp.maxBodyBytes
    this.#pooled = new PooledSessions(server)
    this.#sessionless = new SessionlessEndpoint(server, { allowSse: false, keepAliveMs: 0, maxListenStreams: 0, maxListenStreamsPerPrincipal: 0 })
  }

  async handle(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    try {
      this.#policy.check(header(req.headers, 'host'), header(req.headers, 'origin'))
      if (req.method !== 'POST') throw new HttpError(405, 'Method Not Allowed: this endpoint takes POST only', { headers: { Allow: 'POST' } })
      requireAccept(req.headers, ACCEPT_JSON)
      requireJsonContentType(req.headers)
      const body = parsedBody === undefined ? await readJsonBody(req, this.#maxBodyBytes) : parsedBody
      noteMcpCall(req, body)
      // 2026-07-28 requests are sessionless by nature: served as on /mcp, answered with JSON only
      if (isSessionlessRequest(req.headers, body)) return this.#sessionless.handle(req, res, body)
      const protocolVersion = readProtocolVersionHeader(req.headers) ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION
      const { batch, messages, requestIds: owed } = classifyBody(body)
      refuseBatchUnlessAllowed(batch, protocolVersion)
      const extra = requestExtra(req)
      this.#server.admitStateless?.(extra.authInfo)
      if (hasSessionScopedRequest(messages)) return await this.#serveAlone(res, body, batch, owed, protocolVersion, extra)
      if (owed.length === 0) {
        endSoon(res.writeHead(202))
        return await this.#pooled.serve(res, messages, batch, protocolVersion, extra, undefined)
      }
      await this.#pooled.serve(res, messages, batch, protocolVersion, extra, new JsonAnswer(res, owed, batch))
    } catch (error) {
      sendHttpError(res, error)
    }
  }

  /** End the shared sessions. */
  async close(): Promise<void> {
    await this.#pooled.close()
  }

  /** A request that changes session state (logging/setLevel, ...) gets a throwaway session of its own. */
  async #serveAlone(res: ServerResponse, body: unknown, batch: boolean, owed: RequestId[], protocolVersion: string, extra: MessageExtra): Promise<void> {
    const session = this.#server.createSession({ strictLifecycle: false })
    session.restore({ protocolVersion })
    const transport = new JsonExchangeTransport(res, owed, batch)
    await session.connect(transport)
    transport.onanswered = () => void session.close()
    res.once('close', () => void session.close())
    session.receive(body, extra)
  }
}
