import { ErrorCode, JsonRpcError, type JsonRpcParams, type JsonRpcRequest, type RequestId } from '../../jsonrpc/index.js'
import { META } from '../../schema/revisions.js'
import type { ServerCore } from '../server-core.js'
import type { SessionlessIo } from '../../session-host/session-host.js'
import { honouredFilter, type HubListener, type SubscriptionFilter, type SubscriptionHub } from './subscription-hub.js'

type Result = Record<string, unknown>

const NO_URIS: ReadonlySet<string> = new Set()

/**
 * `subscriptions/listen`: acknowledge with the filter the server honours, then deliver what it
 * asked for, each notification tagged with the subscription id, until the client goes away
 * (resolves then, its answer unsent) or the server closes (resolves with the listen result).
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
 */
export function listen(hub: SubscriptionHub, core: ServerCore, request: JsonRpcRequest, io: SessionlessIo): Promise<Result> {
  const requested = request.params?.notifications
  if (typeof requested !== 'object' || requested === null || Array.isArray(requested)) {
    return Promise.reject(new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: notifications must be an object (the subscription filter)'))
  }
  const stream = new ListenStream(hub, core, request.id, honouredFilter(requested as SubscriptionFilter, core.capabilities()), io)
  return stream.open()
}

/**
 * One open stream: the hub's listener itself, one object rather than closures per stream (10,000
 * idle streams must fit in the memory goal of issue 14).
 */
class ListenStream implements HubListener {
  readonly filter: SubscriptionFilter
  readonly uris: ReadonlySet<string>
  readonly #hub: SubscriptionHub
  readonly #core: ServerCore
  readonly #io: SessionlessIo
  readonly #tag: Record<string, RequestId>
  #done: ((result: Result) => void) | undefined

  constructor(hub: SubscriptionHub, core: ServerCore, id: RequestId, filter: SubscriptionFilter, io: SessionlessIo) {
    this.filter = filter
    this.uris = filter.resourceSubscriptions === undefined ? NO_URIS : new Set(filter.resourceSubscriptions)
    this.#hub = hub
    this.#core = core
    this.#io = io
    this.#tag = { [META.subscriptionId]: id }
  }

  async open(): Promise<Result> {
    await this.#io.notify('notifications/subscriptions/acknowledged', { notifications: this.filter as Record<string, unknown>, _meta: this.#tag })
    return new Promise<Result>((resolve) => {
      this.#done = resolve
      this.#hub.add(this)
      this.#io.onCancel(() => {
        this.#hub.remove(this)
        this.end()
      })
    })
  }

  deliver(method: string, params: JsonRpcParams): void {
    void this.#io.notify(method, { ...params, _meta: this.#tag }).catch(() => undefined)
  }

  end(): void {
    this.#done?.({ resultType: 'complete', _meta: { ...this.#tag, [META.serverInfo]: this.#core.serverInfo } })
  }
}
