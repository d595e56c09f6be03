import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/index.js'
import type { MessageBus } from '../../../sessions/message-bus.js'
import { ClusterLink, type ClusterHooks, type StampedState } from '../../../sessions/cluster-link.js'
import type { LiveSession } from './live-session.js'
import { answeredTag, nodeOfTag, untag } from '../../../sessions/request-id-tags.js'

const NOOP = () => {}

/**
 * The sessions of one handler as the other processes of the deployment see them: what a POST
 * carries for another process goes there (answers to its requests, cancellations of requests it
 * handles), and what the others send is applied to the live copies here.
 */
export class ClusterSessions implements ClusterHooks {
  readonly link: ClusterLink
  readonly #sessions: ReadonlyMap<string, LiveSession>

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

  // ClusterHooks: what the other processes send

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
