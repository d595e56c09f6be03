import { ErrorCode, JsonRpcError, errorResponse, type JsonRpcMessage, type JsonRpcParams, type RequestId } from '../jsonrpc/index.js'
import type { MessageExtra } from '../protocol/transport.js'
import type { ClientCapabilities, Implementation } from '../schema/capabilities.js'
import type { ChildFactory } from './child-factory.js'
import type { ChildLink } from './child-link.js'
import type { ChildPool, ChildSlot } from './child-pool.js'
import { RelayedSession } from './relayed-session.js'
import { duration } from './duration.js'
import { inBandRefusal } from './in-band-refusal.js'
import { describePrincipal, type Principal } from './principal.js'

export interface ChildSessionOptions {
  pool: ChildPool
  factory: ChildFactory
  initializeTimeoutMs: number
  log: (line: string) => void
}

/**
 * A stateful session with a child of its own: the client's initialize starts the child and goes
 * to it as it is (the child negotiates its version with the client), and every message after it
 * is relayed both ways, the child's requests (sampling, elicitation, roots) included. The child
 * ends with the session. A child that dies is started again on the session's next request (after
 * the pool's back-off) and given the client's initialize again; what it held in memory is lost.
 */
export class ChildSession extends RelayedSession {
  readonly #options: ChildSessionOptions
  readonly #principal: Principal
  readonly #slot: ChildSlot
  #link: ChildLink | undefined
  /** Messages that arrived while the child starts. */
  #queue: JsonRpcMessage[] | undefined
  /** The client's initialize, given again to a child started after a failure. */
  #initialize: JsonRpcParams | undefined
  /** The client's initialize request while the child has not answered it. */
  #initializeId: RequestId | undefined
  #initializeTimer: NodeJS.Timeout | undefined
  #startedAt = 0

  constructor(options: ChildSessionOptions, principal: Principal, slot: ChildSlot) {
    super()
    this.#options = options
    this.#principal = principal
    this.#slot = slot
  }

  receiveMessages(messages: readonly JsonRpcMessage[], _batch?: boolean, _extra?: MessageExtra): void {
    for (const message of messages) {
      const link = this.#link
      // the hot path: a running child takes the message as it is
      if (link !== undefined && this.#queue === undefined && link.end === undefined) link.forward(message, this)
      else this.#receiveSlow(message)
    }
  }

  #receiveSlow(message: JsonRpcMessage): void {
    if (this.closed) return
    if (this.#queue !== undefined) {
      this.#queue.push(message)
      return
    }
    const isRequest = 'method' in message && 'id' in message
    if (this.#initialize === undefined) {
      if (!isRequest || message.method !== 'initialize') {
        if (isRequest) this.deliver(errorResponse(message.id, new JsonRpcError(ErrorCode.InvalidRequest, 'Invalid Request: the session has not been initialized')), message.id)
        return
      }
      this.#initialize = message.params ?? {}
      this.clientCapabilities = (message.params?.capabilities as ClientCapabilities | undefined) ?? {}
      this.clientInfo = message.params?.clientInfo as Implementation | undefined
      this.#initializeId = message.id
      this.#start([message], false)
      return
    }
    // the child ended: a request starts it again (after the back-off); a notification has no one to go to
    if (!isRequest) return
    try {
      this.#options.pool.checkBackOff(this.#principal.key)
    } catch (error) {
      this.deliver(errorResponse(message.id, inBandRefusal(error)), message.id)
      return
    }
    this.#start([message], true)
  }

  /** Start a child, then hand it `first` and what arrived meanwhile; `replay`: give it the client's initialize first. */
  #start(first: JsonRpcMessage[], replay: boolean): void {
    const o = this.#options
    this.#queue = first
    this.#startedAt = Date.now()
    o.factory(this.#principal, { exclusive: this }).then(
      async (link) => {
        if (this.closed) {
          await link.stop('the session ended')
          return
        }
        link.onended = (end) => {
          if (end.failed) {
            o.pool.failed(this.#principal.key, Date.now() - this.#startedAt)
            o.log(`gateway: ${end.reason} (${describePrincipal(this.#principal)}); the session's next request starts it again`)
          }
        }
        this.#link = link
        if (replay) {
          try {
            await link.request('initialize', this.#initialize!, o.initializeTimeoutMs)
            link.notify('notifications/initialized')
          } catch (error) {
            void link.stop(error instanceof Error ? error.message : String(error), true)
            return this.#refuseQueue(error)
          }
        } else {
          this.#initializeTimer = setTimeout(() => this.#initializeTimedOut(link), o.initializeTimeoutMs)
        }
        const queue = this.#queue ?? []
        this.#queue = undefined
        for (const message of queue) link.forward(message, this)
      },
      (error: unknown) => {
        o.pool.failed(this.#principal.key, 0)
        const reason = error instanceof Error ? error.message : String(error)
        o.log(`gateway: could not start the MCP server for ${describePrincipal(this.#principal)}: ${reason}`)
        this.#refuseQueue(new JsonRpcError(ErrorCode.InternalError, `Internal error: the MCP server could not be started (${reason})`))
      },
    )
  }

  #refuseQueue(error: unknown): void {
    const queue = this.#queue ?? []
    this.#queue = undefined
    const rpc = JsonRpcError.from(error)
    for (const message of queue) if ('method' in message && 'id' in message) this.deliver(errorResponse(message.id, rpc), message.id)
  }

  #initializeTimedOut(link: ChildLink): void {
    if (this.#initializeId === undefined) return
    void link.stop(`the MCP server did not answer initialize within ${duration(this.#options.initializeTimeoutMs)} and was stopped`, true)
  }

  /** What the child says to this session's client (ChildRoute): the answer to initialize sets the session's version. */
  override deliver(message: JsonRpcMessage, relatedRequestId: RequestId | undefined): void {
    if (this.#initializeId !== undefined && relatedRequestId === this.#initializeId && !('method' in message)) {
      this.#initializeId = undefined
      clearTimeout(this.#initializeTimer)
      const version = 'result' in message ? (message.result as { protocolVersion?: unknown }).protocolVersion : undefined
      if (typeof version === 'string') this.protocolVersion = version
    }
    super.deliver(message, relatedRequestId)
  }

  restore(): never {
    // the child holds the session's state and runs in the process that created it: nothing to restore here
    throw new JsonRpcError(ErrorCode.ConnectionClosed, 'this session runs its MCP server in another gateway process')
  }

  protected async closing(): Promise<void> {
    clearTimeout(this.#initializeTimer)
    const link = this.#link
    this.#link = undefined
    this.#refuseQueue(new JsonRpcError(ErrorCode.ConnectionClosed, 'the session ended'))
    await (link?.stop('the session ended') ?? Promise.resolve()).catch(() => {})
    // the place in the caps is free once the process has gone
    this.#slot.release()
  }
}
