import { randomBytes } from 'node:crypto'
import { defaults } from '../config/defaults.js'
import type { JsonRpcMessage, RequestId } from '../jsonrpc/index.js'
import type { SharedSessionState } from './shared-session-state.js'
import { StorageUnavailableError } from './storage-unavailable.js'
import type { MessageBus } from './message-bus.js'

/** Shared state as it travels: with the time it was saved, so a copy takes only newer ones. */
export type StampedState = SharedSessionState & { updatedAt?: number | undefined }

/** What one process tells the others about the sessions they share. */
type Envelope =
  // to one process: the client's answer to a request that process sent
  | { t: 'reply'; s: string; m: JsonRpcMessage }
  // to every process: a client cancelled a request one of them handles; a session ended
  | { t: 'cancel'; s: string; m: JsonRpcMessage; n: string }
  | { t: 'end'; s: string; n: string }
  // pinned sessions (served only where their host runs them): a client's messages to the owning
  // process, its acknowledgement (`l`: whether it still serves the session), and each answer back
  | { t: 'forward'; s: string; k: number; m: readonly JsonRpcMessage[]; b: boolean; a?: unknown; n: string }
  | { t: 'ack'; s: string; k: number; l: boolean }
  | { t: 'answer'; s: string; m: JsonRpcMessage; r?: RequestId | undefined }
  // to whoever holds the session's GET stream: a message for it, a new holder, a changed state
  | { t: 'send'; m: JsonRpcMessage }
  | { t: 'held'; h: string }
  | { t: 'state'; st: StampedState }

/** What the handler does with what other processes tell it. */
export interface ClusterHooks {
  /** The client's answer to a request this handler sent (its id still tagged). */
  reply(sessionId: string, message: JsonRpcMessage): void
  /** A notifications/cancelled posted to another process. */
  cancelled(sessionId: string, message: JsonRpcMessage): void
  ended(sessionId: string): void
  /** The client changed the session's shared state through another process (sent to the GET stream's holder). */
  stateChanged(sessionId: string, state: StampedState): void
  /**
   * A client's messages for a pinned session this process runs, posted to process `node`, with the
   * request's verified token (opaque here: the transport's `AuthInfo`): true
   * when the session is served here (it then answers through {@link ClusterLink.sendAnswer}).
   */
  forwarded(sessionId: string, messages: readonly JsonRpcMessage[], batch: boolean, authInfo: unknown, node: string): boolean
  /** The owning process took forward `key` (`live`), or no longer serves the session. */
  acknowledged(sessionId: string, key: number, live: boolean): void
  /** The owning process's answer to a request forwarded from here (or a message related to it). */
  answered(sessionId: string, message: JsonRpcMessage, relatedRequestId: RequestId | undefined): void
}

/** A session's GET stream while this process holds it (the session transport). */
export interface HeldStream {
  /** Tells this holder's own announcement from another's (process, handler and transport). */
  readonly holder: string
  /** A message another process sent for the GET stream. */
  deliverHeld(message: JsonRpcMessage): void
  /** Another process (or transport) opened the session's GET stream since: give it up. */
  releaseHeld(): void
}

const NOOP = () => {}
const SESSIONS_CHANNEL = 'mcp:sessions'
const nodeChannel = (node: string) => `mcp:node:${node}`
const streamChannel = (sessionId: string) => `mcp:stream:${sessionId}`

/**
 * One handler's link to the other processes serving the same sessions, over a {@link MessageBus}
 * (Redis pub/sub): a channel of its own (answers to the requests it sent), one every process
 * hears (cancellations, ended sessions), and one per session whose GET stream it holds. The bus
 * delivers at most once, in order per channel: durable things (state, events) go to the stores.
 */
export class ClusterLink {
  /** This handler among the processes: 8 hex digits (request id tags carry it). */
  readonly nodeId = randomBytes(4).toString('hex')
  readonly #bus: MessageBus
  readonly #hooks: ClusterHooks
  #listening: Promise<void> | undefined
  readonly #stops: Array<() => Promise<void>> = []

  constructor(bus: MessageBus, hooks: ClusterHooks) {
    this.#bus = bus
    this.#hooks = hooks
  }

  /** Resolves once this handler hears its channels (subscribed on first use; again after a failure). */
  ready(): Promise<void> {
    this.#listening ??= this.#listen().catch((error: unknown) => {
      this.#listening = undefined
      throw error
    })
    return this.#listening
  }

  async #listen(): Promise<void> {
    const listener = (text: string) => this.#receive(text)
    const stops: Array<() => Promise<void>> = []
    try {
      stops.push(await subscribeInTime(this.#bus, nodeChannel(this.nodeId), listener))
      stops.push(await subscribeInTime(this.#bus, SESSIONS_CHANNEL, listener))
    } catch (error) {
      await Promise.all(stops.map((stop) => stop().catch(NOOP)))
      throw error
    }
    this.#stops.push(...stops)
  }

  /** A client's answer (response, progress) to a request handler `node` sent. */
  sendReply(node: string, sessionId: string, message: JsonRpcMessage): Promise<void> {
    return this.#publish(nodeChannel(node), { t: 'reply', s: sessionId, m: message })
  }

  /** A notifications/cancelled for a request another process is handling. */
  broadcastCancel(sessionId: string, message: JsonRpcMessage): Promise<void> {
    return this.#publish(SESSIONS_CHANNEL, { t: 'cancel', s: sessionId, m: message, n: this.nodeId })
  }

  /**
   * A client's messages for a pinned session to the process `node` that runs it. The token travels
   * with them (the owner picks the principal from it): the bus is inside the deployment, and
   * nothing here logs it. False when the bus reports that nobody listens there (the process is gone).
   */
  async forwardTo(node: string, sessionId: string, key: number, messages: readonly JsonRpcMessage[], batch: boolean, authInfo: unknown): Promise<boolean> {
    const envelope: Envelope = { t: 'forward', s: sessionId, k: key, m: messages, b: batch, a: authInfo, n: this.nodeId }
    const heard: unknown = await this.#bus.publish(nodeChannel(node), JSON.stringify(envelope))
    return typeof heard !== 'number' || heard > 0
  }

  /** An answer (or a message related to it) for a request process `node` forwarded here. */
  sendAnswer(node: string, sessionId: string, message: JsonRpcMessage, relatedRequestId: RequestId | undefined): Promise<void> {
    return this.#publish(nodeChannel(node), { t: 'answer', s: sessionId, m: message, r: relatedRequestId })
  }

  /** The session ended (DELETE, or evicted): every process closes its copy. */
  publishEnd(sessionId: string): Promise<void> {
    return this.#publish(SESSIONS_CHANNEL, { t: 'end', s: sessionId, n: this.nodeId })
  }

  /** The client changed its session's shared state here: the GET stream's holder takes it. */
  publishState(sessionId: string, state: StampedState): Promise<void> {
    return this.#publish(streamChannel(sessionId), { t: 'state', st: state })
  }

  /**
   * Put `message` on the session's GET stream, held by another process. False when the bus
   * reports that nobody listens (no process holds the stream now); true when it cannot tell.
   */
  async forward(sessionId: string, message: JsonRpcMessage): Promise<boolean> {
    const heard: unknown = await this.#bus.publish(streamChannel(sessionId), JSON.stringify({ t: 'send', m: message } satisfies Envelope))
    return typeof heard !== 'number' || heard > 0
  }

  /**
   * Hold the session's GET stream: listen on its channel, announce it (a previous holder gives it
   * up), and resolve once the announcement came back. Messages sent before it are the previous
   * holder's to store, those after it are `stream`'s: each one is stored once, by one process.
   * Returns what stops holding.
   */
  async hold(sessionId: string, stream: HeldStream): Promise<() => Promise<void>> {
    let announced: (() => void) | undefined
    const echoed = new Promise<void>((resolve) => (announced = resolve))
    let live = false
    const stop = await subscribeInTime(this.#bus, streamChannel(sessionId), (text) => {
      const envelope = parse(text)
      if (envelope === undefined) return
      if (envelope.t === 'held') {
        if (envelope.h === stream.holder) {
          live = true
          announced?.()
        } else if (live) {
          live = false
          stream.releaseHeld()
        }
      } else if (envelope.t === 'send') {
        if (live) stream.deliverHeld(envelope.m)
      } else if (envelope.t === 'state') {
        this.#hooks.stateChanged(sessionId, envelope.st)
      }
    })
    try {
      await this.#publish(streamChannel(sessionId), { t: 'held', h: stream.holder })
      await inTime(echoed)
    } catch (error) {
      await stop().catch(NOOP)
      throw error
    }
    return stop
  }

  async close(): Promise<void> {
    const stops = this.#stops.splice(0)
    this.#listening = undefined
    await Promise.all(stops.map((stop) => stop().catch(NOOP)))
  }

  #receive(text: string): void {
    const envelope = parse(text)
    if (envelope === undefined) return
    switch (envelope.t) {
      case 'reply':
        return this.#hooks.reply(envelope.s, envelope.m)
      case 'cancel':
        if (envelope.n !== this.nodeId) this.#hooks.cancelled(envelope.s, envelope.m)
        return
      case 'end':
        if (envelope.n !== this.nodeId) this.#hooks.ended(envelope.s)
        return
      case 'forward': {
        const live = this.#hooks.forwarded(envelope.s, envelope.m, envelope.b, envelope.a, envelope.n)
        this.#publish(nodeChannel(envelope.n), { t: 'ack', s: envelope.s, k: envelope.k, l: live }).catch(NOOP)
        return
      }
      case 'ack':
        return this.#hooks.acknowledged(envelope.s, envelope.k, envelope.l)
      case 'answer':
        return this.#hooks.answered(envelope.s, envelope.m, envelope.r)
    }
  }

  #publish(channel: string, envelope: Envelope): Promise<void> {
    return this.#bus.publish(channel, JSON.stringify(envelope))
  }
}

function parse(text: string): Envelope | undefined {
  try {
    const envelope = JSON.parse(text) as Envelope
    return typeof envelope === 'object' && envelope !== null && typeof envelope.t === 'string' ? envelope : undefined
  } catch {
    return undefined
  }
}

/**
 * The bus's answer within the Redis command timeout: a subscription waits for Redis to come back
 * (the subscriber connection queues), but a request must fail fast with 503 instead.
 */
function inTime<T>(promise: Promise<T>): Promise<T> {
  const ms = defaults.redis.commandTimeoutMs
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new StorageUnavailableError(`the message bus did not answer within ${ms} ms`)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}

/** Subscribes, or fails in time; a subscription that completes too late is stopped at once. */
async function subscribeInTime(bus: MessageBus, channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
  const subscribing = bus.subscribe(channel, listener)
  try {
    return await inTime(subscribing)
  } catch (error) {
    subscribing.then((stop) => stop(), NOOP).catch(NOOP)
    throw error
  }
}
