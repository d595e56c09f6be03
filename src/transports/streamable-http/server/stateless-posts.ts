import type { ServerResponse } from 'node:http'
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/index.js'
import type { MessageExtra } from '../../../protocol/transport.js'
import type { SessionHost } from '../../../session-host/session-host.js'
import { endSoon } from '../../http/end-soon.js'
import { refuseBatchUnlessAllowed } from '../../http/json-rpc-body.js'
import { PooledSessions, hasSessionScopedRequest } from '../../http/pooled-sessions.js'
import { OutboundStream, type StreamHost } from './outbound-stream.js'
import { SessionTransport, type SessionTransportOptions } from './session-transport.js'

const NO_HEADERS: Record<string, string> = {}

/**
 * The POSTs of the Streamable HTTP handler that name no session: every POST in stateless mode, and
 * a ping without Mcp-Session-Id. Most are served by a pooled session (one per protocol version);
 * one that changes per-session state gets a throwaway session of its own.
 */
export class StatelessPosts {
  readonly #server: SessionHost
  readonly #preferJson: boolean
  /** One long-lived (pooled) session per protocol version. */
  readonly #pooled: PooledSessions
  /** What every throwaway session's transport shares. */
  readonly #throwawayTransports: SessionTransportOptions
  /** The streams of the pooled sessions: nothing stored, never primed. */
  readonly #unstoredStreams: StreamHost

  constructor(server: SessionHost, options: Pick<SessionTransportOptions, 'keepAliveMs' | 'retryMs' | 'preferJsonResponse'>) {
    const { keepAliveMs, retryMs, preferJsonResponse } = options
    this.#server = server
    this.#preferJson = preferJsonResponse
    this.#pooled = new PooledSessions(server)
    this.#throwawayTransports = { eventStore: undefined, keepAliveMs, retryMs, preferJsonResponse }
    this.#unstoredStreams = { sessionId: undefined, eventStore: undefined, keepAliveMs, retryMs, prime: false }
  }

  /** A POST of stateless mode: a throwaway session when it changes per-session state, else the pooled one. */
  post(res: ServerResponse, body: unknown, messages: JsonRpcMessage[], batch: boolean, requestIds: RequestId[], protocolVersion: string, extra: MessageExtra): Promise<void> {
    this.#server.admitStateless?.(extra.authInfo)
    if (hasSessionScopedRequest(messages)) return this.postAlone(res, body, batch, requestIds, protocolVersion, extra)
    return this.postPooled(res, messages, batch, requestIds, protocolVersion, extra)
  }

  close(): Promise<void> {
    return this.#pooled.close()
  }

  /**
   * Stateless requests that change nothing session-wide are served by one long-lived session per
   * protocol version (ids remapped per request), so a stateless POST builds no session at all.
   */
  async postPooled(res: ServerResponse, messages: JsonRpcMessage[], batch: boolean, requestIds: RequestId[], protocolVersion: string, extra: MessageExtra): Promise<void> {
    refuseBatchUnlessAllowed(batch, protocolVersion)
    if (requestIds.length === 0) {
      endSoon(res.writeHead(202))
      return this.#pooled.serve(res, messages, batch, protocolVersion, extra, undefined)
    }
    const stream = new OutboundStream(res, requestIds, this.#unstoredStreams, '', NO_HEADERS, {
      batch,
      preferJson: this.#preferJson,
      standalone: false,
    })
    return this.#pooled.serve(res, messages, batch, protocolVersion, extra, stream)
  }

  async postAlone(res: ServerResponse, body: unknown, batch: boolean, requestIds: RequestId[], protocolVersion: string, extra: MessageExtra): Promise<void> {
    refuseBatchUnlessAllowed(batch, protocolVersion)
    const session = this.#server.createSession({ strictLifecycle: false })
    session.restore({ protocolVersion })
    const transport = new SessionTransport(undefined, this.#throwawayTransports)
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
}
