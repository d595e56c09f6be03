import { ErrorCode, JsonRpcError, type JsonRpcParams } from '../jsonrpc/index.js'
import type { AuthInfo } from '../protocol/context.js'
import type { ServerContext } from './context.js'
import { InputRequired } from './sessionless/input-round.js'

/**
 * One `tools/call`, `resources/read` or `prompts/get` this server answered: who asked (the
 * transport's verified `authInfo`), in which session, its outcome and how long it took. What an
 * audit trail records of an allowed call; the arguments are there for a listener that was told to
 * keep them for this tool, never the result.
 */
export interface EndedCall {
  method: string
  /** The tool name, resource URI or prompt name (undefined when the params lacked it). */
  target: string | undefined
  authInfo: AuthInfo | undefined
  sessionId: string | undefined
  /** `ok`; `isError` (the tool's own failure); `input-required` (a 2026-07-28 round); or the JSON-RPC error code. */
  status: 'ok' | 'isError' | 'input-required' | number
  durationMs: number
  arguments: unknown
}

/** Called once for each call the server ended; it must be cheap and never throw. */
export type CallEndedListener = (call: EndedCall) => void

/**
 * Runs `run` and reports how it ended to `listeners`, then hands the outcome on unchanged. Only
 * called when someone listens: the feature methods call `run` directly otherwise (no closure, no
 * clock read per call).
 */
export async function observeCall<T>(
  listeners: readonly CallEndedListener[],
  method: string,
  params: JsonRpcParams,
  context: ServerContext,
  run: () => Promise<T> | T,
): Promise<T> {
  const started = performance.now()
  const target = method === 'resources/read' ? params['uri'] : params['name']
  const report = (status: EndedCall['status']): void => {
    const call: EndedCall = {
      method,
      target: typeof target === 'string' ? target : undefined,
      authInfo: context.authInfo,
      sessionId: context.sessionId,
      status,
      durationMs: performance.now() - started,
      arguments: params['arguments'],
    }
    for (const listener of listeners) {
      try {
        listener(call)
      } catch {
        // a listener's failure is its own: the call's answer stands
      }
    }
  }
  try {
    const result = await run()
    report((result as { isError?: unknown } | undefined)?.isError === true ? 'isError' : 'ok')
    return result
  } catch (error) {
    report(error instanceof InputRequired ? 'input-required' : error instanceof JsonRpcError ? error.code : ErrorCode.InternalError)
    throw error
  }
}
