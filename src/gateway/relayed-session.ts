import type { JsonRpcMessage, RequestId } from '../jsonrpc/index.js'
import type { MessageExtra, Transport } from '../protocol/transport.js'
import type { ClientCapabilities, Implementation } from '../schema/capabilities.js'
import type { LoggingLevel } from '../schema/features.js'
import type { HostedSession } from '../session-host/session-host.js'
import type { SharedSessionState } from '../sessions/shared-session-state.js'
import type { ChildRoute } from './child-link.js'
import { classifyPayload } from './classify-payload.js'

const NOOP = () => {}

/**
 * What the gateway's sessions share: the transport they answer on (every message of a child for
 * this session goes out through `deliver`), messages taken from either delivery path of the
 * transports, and a close that ends the transport once. A subclass says where messages go
 * (`receiveMessages`), what its state is after a restore, and what it ends on close (`closing`).
 */
export abstract class RelayedSession implements HostedSession, ChildRoute {
  protocolVersion: string | undefined
  clientCapabilities: ClientCapabilities | undefined
  clientInfo: Implementation | undefined
  // a child keeps its own subscriptions and log level: nothing kept here for other processes
  readonly subscriptions: string[] = []
  readonly logLevel: LoggingLevel | undefined = undefined
  onclose?: (() => void) | undefined
  #transport: Transport | undefined
  /** Once close() began: nothing more goes to the client. */
  protected closed = false

  async connect(transport: Transport): Promise<void> {
    this.#transport = transport
    // transports that deliver through the session's callback (the legacy HTTP+SSE pair)
    transport.onmessage = (payload, extra) => this.receive(payload, extra)
    transport.onclose = () => void this.close()
    await transport.start()
  }

  receive(payload: unknown, extra?: MessageExtra): void {
    const { messages, refusals } = classifyPayload(payload)
    for (const refusal of refusals) this.deliver(refusal.response, refusal.id)
    this.receiveMessages(messages, Array.isArray(payload), extra)
  }

  abstract receiveMessages(messages: readonly JsonRpcMessage[], batch?: boolean, extra?: MessageExtra): void

  abstract restore(state: { protocolVersion: string; clientCapabilities?: ClientCapabilities | undefined; clientInfo?: Implementation | undefined } & SharedSessionState): void

  /** What a child says to this session's client (ChildRoute). */
  deliver(message: JsonRpcMessage, relatedRequestId: RequestId | undefined): void {
    const transport = this.#transport
    if (transport === undefined || this.closed) return
    transport.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId }).catch(NOOP)
  }

  applySharedState(): void {}

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    const ended = this.closing()
    await this.#transport?.close()
    this.onclose?.()
    await ended
  }

  /** End what the session holds (called once, as close begins); resolves when it has ended. */
  protected abstract closing(): Promise<void>
}
