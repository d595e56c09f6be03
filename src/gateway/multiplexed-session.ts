import { JsonRpcError, errorResponse, type JsonRpcMessage, type JsonRpcRequest } from '../jsonrpc/index.js'
import type { MessageExtra } from '../protocol/transport.js'
import type { ClientCapabilities, Implementation } from '../schema/capabilities.js'
import type { SharedSessionState } from '../sessions/shared-session-state.js'
import { RelayedSession } from './relayed-session.js'
import { inBandRefusal } from './in-band-refusal.js'
import type { LongLivedChildren, ReadyChild } from './long-lived-children.js'
import { negotiateVersion } from './negotiate-version.js'
import { principalOf, type Principal } from './principal.js'

/**
 * A session served by a long-lived child the gateway initialized itself: a stateless POST's
 * pooled session (each message goes to its own principal's child, read from the message's token),
 * or, with `--shared`, a stateful session of the one shared child. The gateway answers
 * `initialize` and `ping` itself from what the child said when it started.
 */
export class MultiplexedSession extends RelayedSession {
  readonly #children: LongLivedChildren
  /** A stateful session of the shared child: told of list changes; ended with its transport. */
  readonly #stateful: boolean
  /** The principals this session reached children for (a pooled session serves many). */
  readonly #principals = new Map<string, Principal>()

  constructor(children: LongLivedChildren, options: { stateful: boolean }) {
    super()
    this.#children = children
    this.#stateful = options.stateful
  }

  receiveMessages(messages: readonly JsonRpcMessage[], _batch: boolean, extra?: MessageExtra): void {
    const principal = principalOf(extra?.authInfo)
    for (const message of messages) this.#receiveOne(message, principal)
  }

  #receiveOne(message: JsonRpcMessage, principal: Principal): void {
    const isRequest = 'method' in message && 'id' in message
    if (isRequest && message.method === 'ping') return this.deliver({ jsonrpc: '2.0', id: message.id, result: {} }, message.id)
    let child: ReadyChild | Promise<ReadyChild>
    try {
      child = this.#children.acquire(principal)
    } catch (error) {
      if (isRequest) this.deliver(errorResponse(message.id, inBandRefusal(error)), message.id)
      return
    }
    if (!this.#principals.has(principal.key)) {
      this.#principals.set(principal.key, principal)
      if (this.#stateful) this.#children.listen(principal, this)
    }
    if ('then' in child) {
      child.then(
        (ready) => this.#toChild(ready, message),
        (error: unknown) => {
          if (isRequest) this.deliver(errorResponse(message.id, JsonRpcError.from(error)), message.id)
        },
      )
      return
    }
    this.#toChild(child, message)
  }

  #toChild(child: ReadyChild, message: JsonRpcMessage): void {
    if (this.closed) return
    if ('method' in message && 'id' in message && message.method === 'initialize') return this.#initialize(child, message)
    child.link.forward(message, this)
  }

  /** The child was initialized by the gateway: the client's initialize is answered from what it said. */
  #initialize(child: ReadyChild, request: JsonRpcRequest): void {
    const params = request.params ?? {}
    const protocolVersion = negotiateVersion(params.protocolVersion, child.init.protocolVersion)
    this.protocolVersion = protocolVersion
    this.clientCapabilities = (params.capabilities as ClientCapabilities | undefined) ?? {}
    this.clientInfo = params.clientInfo as Implementation | undefined
    const { capabilities, serverInfo, instructions } = child.init
    const result = instructions === undefined ? { protocolVersion, capabilities, serverInfo } : { protocolVersion, capabilities, serverInfo, instructions }
    this.deliver({ jsonrpc: '2.0', id: request.id, result }, request.id)
  }

  restore(state: { protocolVersion: string; clientCapabilities?: ClientCapabilities | undefined; clientInfo?: Implementation | undefined } & SharedSessionState): void {
    this.protocolVersion = state.protocolVersion
    this.clientCapabilities = state.clientCapabilities
    this.clientInfo = state.clientInfo
  }

  protected async closing(): Promise<void> {
    for (const principal of this.#principals.values()) this.#children.detach(principal, this)
    this.#principals.clear()
  }
}
