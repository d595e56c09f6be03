import type { ServerResponse } from 'node:http'
import type { JsonRpcMessage } from '../../jsonrpc/index.js'
import type { MessageExtra } from '../../protocol/transport.js'
import type { HostedSession, SessionHost } from '../../session-host/session-host.js'
import { PooledSessionTransport, type AnswerSink } from './pooled-session-transport.js'

/**
 * Requests that change state kept per session: a stateless POST carrying one gets a throwaway
 * session of its own rather than touching the shared one.
 */
const SESSION_SCOPED_METHODS = new Set(['initialize', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'])

/** Whether any request of a POST changes state kept per session (see SESSION_SCOPED_METHODS). */
export function hasSessionScopedRequest(messages: readonly JsonRpcMessage[]): boolean {
  for (const message of messages) {
    if ('method' in message && 'id' in message && SESSION_SCOPED_METHODS.has(message.method)) return true
  }
  return false
}

interface Shared {
  session: HostedSession
  transport: PooledSessionTransport
}

/**
 * The sessions that serve stateless POSTs (Streamable HTTP in stateless mode, and the JSON-only
 * endpoint): one long-lived session per protocol version, made on its first request, with ids
 * remapped per request by PooledSessionTransport (pooled: shared by every POST of that version, in
 * this process only; distinct from the 2026-07-28 sessionless revision, which has no session). A stateless POST then builds no session at all.
 */
export class PooledSessions {
  readonly #server: SessionHost
  readonly #pooled = new Map<string, Shared>()

  constructor(server: SessionHost) {
    this.#server = server
  }

  /**
   * Hand the messages of one POST to the shared session of `protocolVersion`. `sink` receives
   * the answers (undefined when the POST owes none); a client that hangs up before its answer
   * cancels the work done for it, as a notifications/cancelled would. Synchronous once the
   * session exists (a promise only for the first request of a protocol version).
   */
  serve(
    res: ServerResponse,
    messages: readonly JsonRpcMessage[],
    batch: boolean,
    protocolVersion: string,
    extra: MessageExtra,
    sink: AnswerSink | undefined,
  ): Promise<void> | undefined {
    const shared = this.#pooled.get(protocolVersion)
    if (shared === undefined) return this.#open(protocolVersion).then((opened) => this.#dispatch(opened, res, messages, batch, extra, sink))
    this.#dispatch(shared, res, messages, batch, extra, sink)
    return undefined
  }

  #dispatch(shared: Shared, res: ServerResponse, messages: readonly JsonRpcMessage[], batch: boolean, extra: MessageExtra, sink: AnswerSink | undefined): void {
    const { payload, internalIds } = shared.transport.admit(sink, messages)
    if (payload.length === 0) return // only notifications/cancelled, which cannot be matched here
    if (sink !== undefined) {
      res.once('close', () => {
        if (!sink.finished) shared.transport.abandon(internalIds, extra)
      })
    }
    shared.session.receiveMessages(payload, batch, extra)
  }

  async close(): Promise<void> {
    const all = [...this.#pooled.values()]
    this.#pooled.clear()
    await Promise.all(all.map((shared) => shared.session.close()))
  }

  async #open(protocolVersion: string): Promise<Shared> {
    let shared = this.#pooled.get(protocolVersion)
    if (shared === undefined) {
      const session = this.#server.createSession({ strictLifecycle: false })
      session.restore({ protocolVersion })
      const transport = new PooledSessionTransport()
      shared = { session, transport }
      this.#pooled.set(protocolVersion, shared)
      await session.connect(transport)
    }
    return shared
  }
}
