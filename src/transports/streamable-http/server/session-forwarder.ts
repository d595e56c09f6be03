import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/index.js'
import { HttpError } from '../../../net/http-error.js'
import { saveFailure } from '../../http/storage-unavailable.js'
import type { MessageExtra, Transport } from '../../../protocol/transport.js'
import type { HostedSession } from '../../../session-host/session-host.js'
import type { ClusterLink } from '../../../sessions/cluster-link.js'
import type { SessionState } from '../../../sessions/session-store.js'
import type { ClientCapabilities, Implementation } from '../../../schema/capabilities.js'

const RESOLVED: Promise<void> = Promise.resolve()

/**
 * This process's stand-in for a pinned session another process runs (a gateway session: its
 * child lives there). It serves nothing itself: what the client posts here goes to the owning
 * process over the cluster link, which answers back through the same link; the answers are
 * written to this process's HTTP exchanges by the cluster hooks. `forwarded` is what the last
 * delivery's acknowledgement depends on: the handler holds the exchange's answer behind it, so a
 * gone owner makes it a 404 (-32001) and the client starts a new session.
 */
export class SessionForwarder implements HostedSession {
  readonly protocolVersion: string | undefined
  readonly clientCapabilities: ClientCapabilities | undefined
  readonly clientInfo: Implementation | undefined
  readonly subscriptions: string[] = []
  readonly logLevel = undefined
  /** The process that runs the session. */
  readonly node: string
  onclose?: (() => void) | undefined
  /** The acknowledgement of the last delivery (resolved before any). */
  forwarded: Promise<void> = RESOLVED
  readonly #link: ClusterLink
  readonly #acknowledge: (sessionId: string, send: (key: number) => Promise<boolean>) => Promise<void>
  #transport: Transport | undefined
  #sessionId: string | undefined

  /**
   * `acknowledge` publishes one delivery under a fresh key and resolves once the owner took it
   * (rejects when it is gone or silent): the cluster hooks keep the pending acknowledgements.
   */
  constructor(state: SessionState, link: ClusterLink, acknowledge: (sessionId: string, send: (key: number) => Promise<boolean>) => Promise<void>) {
    this.protocolVersion = state.protocolVersion === '' ? undefined : state.protocolVersion
    this.clientCapabilities = state.clientCapabilities
    this.clientInfo = state.clientInfo
    this.node = state.node!
    this.#link = link
    this.#acknowledge = acknowledge
    this.#sessionId = state.id
  }

  async connect(transport: Transport): Promise<void> {
    this.#transport = transport
    transport.onclose = () => this.onclose?.()
    await transport.start()
  }

  receive(payload: unknown, extra?: MessageExtra): void {
    this.receiveMessages(Array.isArray(payload) ? (payload as JsonRpcMessage[]) : [payload as JsonRpcMessage], Array.isArray(payload), extra)
  }

  receiveMessages(messages: readonly JsonRpcMessage[], batch: boolean, extra?: MessageExtra): void {
    const sessionId = this.#sessionId!
    this.forwarded = this.#acknowledge(sessionId, (key) => this.#link.forwardTo(this.node, sessionId, key, messages, batch, extra?.authInfo))
    // the handler holds its answer behind it; a delivery with no exchange (notifications) may fail quietly
    this.forwarded.catch(() => undefined)
  }

  /** Never taken up from the store: the session lives where its host runs it. */
  restore(): void {}

  applySharedState(): void {}

  async close(): Promise<void> {
    await this.#transport?.close()
  }
}

/** A forward its owner did not take: 404 (-32001) when it is gone, 503 when the bus is down. */
export function forwardFailure(error: unknown, id: RequestId | null): HttpError {
  if (error instanceof HttpError && error.status === 404) return new HttpError(404, error.message, { rpcCode: -32001, id })
  return saveFailure(error, id)
}
