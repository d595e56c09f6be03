import type { JsonRpcParams } from '../../jsonrpc/index.js'
import type { AuthInfo, RequestContext } from '../../protocol/context.js'
import type { SessionlessIo } from '../../session-host/session-host.js'

/**
 * The SessionlessIo of a 2026-07-28 request that came over a session's connection (stdio, or a
 * pipe that also carries a handshake-era session): the request's own context underneath. Its
 * signal is read only when the handler asks for it, as the endpoint makes it on first use.
 */
export class RequestContextIo implements SessionlessIo {
  readonly #context: RequestContext

  constructor(context: RequestContext) {
    this.#context = context
  }

  get signal(): AbortSignal {
    return this.#context.signal
  }
  get authInfo(): AuthInfo | undefined {
    return this.#context.authInfo
  }
  get headers(): SessionlessIo['headers'] {
    return this.#context.headers
  }

  notify(method: string, params: JsonRpcParams): Promise<void> {
    return this.#context.sendNotification(method, params)
  }

  onCancel(callback: () => void): void {
    const signal = this.#context.signal
    if (signal.aborted) callback()
    else signal.addEventListener('abort', callback, { once: true })
  }
}
