import { defaults } from '../../../config/defaults.js'
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/index.js'
import { HttpError } from '../../../net/http-error.js'
import type { AuthInfo } from '../../../protocol/context.js'
import type { MessageBus } from '../../../sessions/message-bus.js'
import { ClusterLink, type ClusterHooks, type StampedState } from '../../../sessions/cluster-link.js'
import type { LiveSession } from './live-session.js'
import { answeredTag, nodeOfTag, untag } from '../../../sessions/request-id-tags.js'
import { SessionForwarder } from './session-forwarder.js'

const NOOP = () => {}
const ownerGone = () => new HttpError(404, 'Not Found: unknown or ended session', { rpcCode: -32001 })

/** A delivery to the process that runs a pinned session, until it acknowledges it. */
interface PendingAck {
  sessionId: string
  resolve(): void
  reject(error: unknown): void
  timer: NodeJS.Timeout
}

/**
 * The sessions of one handler as the other processes of the deployment see them: what a POST
 * carries for another process goes there (answers to its requests, cancellations of requests it
 * handles), and what the others send is applied to the live copies here.
 */
export class ClusterSessions implements ClusterHooks {
  readonly link: ClusterLink
  readonly #sessions: ReadonlyMap<string, LiveSession>
  readonly #acks = new Map<number, PendingAck>()
  #nextKey = 0

  constructor(bus: MessageBus, sessions: ReadonlyMap<string, LiveSession>) {
    this.link = new ClusterLink(bus, this)
    this.#sessions = sessions
  }

  /**
   * The messages of a POST this process handles itself: the client's answers to requests another
   * process sent are forwarded to it (resolves once the bus took them), and the answers to this
   * process's own requests get their ids back.
   */
  async routeAnswers(live: LiveSession, messages: readonly JsonRpcMessage[]): Promise<JsonRpcMessage[]> {
    const local: JsonRpcMessage[] = []
    const forwarded: Array<Promise<void>> = []
    for (const message of messages) {
      const tag = answeredTag(message)
      if (tag === undefined) {
        local.push(message)
        continue
      }
      const node = nodeOfTag(tag)
      if (node !== this.link.nodeId) {
        forwarded.push(this.link.sendReply(node, live.transport.sessionId!, message))
        continue
      }
      const own = untag(message, tag, live.transport.tagPrefix!)
      if (own !== undefined) local.push(own)
    }
    await Promise.all(forwarded)
    return local
  }

  /** notifications/cancelled: for a request handled here, or (unknown here) by another process. */
  cancel(live: LiveSession, cancels: readonly JsonRpcMessage[]): void {
    for (const message of cancels) {
      const requestId = requestIdOf(message)
      if (requestId === undefined) continue
      if (live.transport.owes(requestId)) live.transport.cancelled(requestId)
      else this.link.broadcastCancel(live.transport.sessionId!, message).catch(NOOP)
    }
  }

  /**
   * Publish one delivery for a pinned session (`send` under a fresh key) and resolve once its
   * owner took it; reject with 404 (-32001) when the owner says it no longer serves the session,
   * nobody listens on its channel, or no acknowledgement comes within `forwardAckMs` (it died).
   */
  acknowledge(sessionId: string, send: (key: number) => Promise<boolean>): Promise<void> {
    const key = ++this.#nextKey
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.#settle(key, ownerGone()), defaults.streamableHttp.forwardAckMs)
      this.#acks.set(key, { sessionId, resolve, reject, timer })
      send(key).then(
        (heard) => {
          if (!heard) this.#settle(key, ownerGone())
        },
        (error: unknown) => this.#settle(key, error),
      )
    })
  }

  #settle(key: number, error?: unknown): void {
    const pending = this.#acks.get(key)
    if (pending === undefined) return
    this.#acks.delete(key)
    clearTimeout(pending.timer)
    if (error === undefined) pending.resolve()
    else pending.reject(error)
  }

  // ClusterHooks: what the other processes send

  forwarded(sessionId: string, messages: readonly JsonRpcMessage[], batch: boolean, authInfo: unknown, node: string): boolean {
    const live = this.#sessions.get(sessionId)
    if (live === undefined || live.session instanceof SessionForwarder) return false
    live.lastSeen = Date.now()
    const requestIds: RequestId[] = []
    for (const message of messages) {
      if ('method' in message && 'id' in message) requestIds.push(message.id)
      else if ('method' in message && message.method === 'notifications/cancelled') {
        const requestId = requestIdOf(message)
        if (requestId !== undefined) live.transport.cancelled(requestId)
      }
    }
    if (requestIds.length > 0) live.transport.serveRemote(requestIds, node)
    live.session.receiveMessages(messages, batch, authInfo === undefined || authInfo === null ? undefined : { authInfo: authInfo as AuthInfo })
    return true
  }

  acknowledged(_sessionId: string, key: number, live: boolean): void {
    this.#settle(key, live ? undefined : ownerGone())
  }

  answered(sessionId: string, message: JsonRpcMessage, relatedRequestId: RequestId | undefined): void {
    const live = this.#sessions.get(sessionId)
    if (live === undefined || !(live.session instanceof SessionForwarder)) return
    void live.transport.deliver(message, relatedRequestId).catch(NOOP)
  }

  reply(sessionId: string, message: JsonRpcMessage): void {
    const live = this.#sessions.get(sessionId)
    const tag = answeredTag(message)
    if (live === undefined || tag === undefined) return
    const own = untag(message, tag, live.transport.tagPrefix!)
    if (own !== undefined) live.session.receiveMessages([own], false)
  }

  cancelled(sessionId: string, message: JsonRpcMessage): void {
    const live = this.#sessions.get(sessionId)
    const requestId = requestIdOf(message)
    if (live === undefined || requestId === undefined || !live.transport.owes(requestId)) return
    live.session.receiveMessages([message], false)
    live.transport.cancelled(requestId)
  }

  ended(sessionId: string): void {
    this.#sessions.get(sessionId)?.close()
    for (const [key, pending] of this.#acks) if (pending.sessionId === sessionId) this.#settle(key, ownerGone())
  }

  stateChanged(sessionId: string, state: StampedState): void {
    const live = this.#sessions.get(sessionId)
    if (live === undefined || state.updatedAt === live.updatedAt) return
    live.session.applySharedState(state)
    live.updatedAt = state.updatedAt
  }
}

function requestIdOf(message: JsonRpcMessage): RequestId | undefined {
  const requestId = 'method' in message ? message.params?.requestId : undefined
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined
}
