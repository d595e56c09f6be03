import type { JsonRpcParams } from '../jsonrpc/index.js'
import { LocalError } from '../protocol/errors.js'

type Result = Record<string, unknown>

/** Answers one question of an input-required result (elicitation, sampling, roots). */
export type InputAnswerer = (key: string, method: string, params: JsonRpcParams) => Promise<unknown>

/**
 * A request of the stateless revision with its multi-round results (MRTR): while the server
 * answers `resultType: "input_required"`, answer every question through `answer` and send the
 * request again, as a new request, with `inputResponses` and the `requestState` echoed byte for
 * byte (and none when the server sent none). Each retry starts from the caller's params, so
 * nothing of one flow leaks into another; more than `maxRounds` rounds end the call.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 */
export async function requestWithInputRounds(
  method: string,
  params: JsonRpcParams | undefined,
  send: (params: JsonRpcParams | undefined) => Promise<Result>,
  answer: InputAnswerer,
  maxRounds: number,
): Promise<Result> {
  let current = params
  for (let round = 0; ; round++) {
    const result = await send(current)
    if (result.resultType !== 'input_required') return result
    if (round >= maxRounds) throw new LocalError('too_many_input_rounds', `${method}: the server asked for input ${round + 1} times; giving up after ${maxRounds} rounds`)
    const requests = result.inputRequests
    if (typeof requests !== 'object' || requests === null || Array.isArray(requests) || Object.keys(requests).length === 0) {
      throw new LocalError('invalid_response', `${method}: an input-required result without inputRequests`)
    }
    const inputResponses: Record<string, unknown> = {}
    await Promise.all(
      Object.entries(requests as Record<string, unknown>).map(async ([key, request]) => {
        const { method: asked, params: askedParams } = (request ?? {}) as { method?: unknown; params?: unknown }
        if (typeof asked !== 'string') throw new LocalError('invalid_response', `${method}: input request ${JSON.stringify(key)} names no method`)
        const answerParams = typeof askedParams === 'object' && askedParams !== null ? (askedParams as JsonRpcParams) : {}
        inputResponses[key] = await answer(key, asked, answerParams)
      }),
    )
    current = { ...params, inputResponses }
    if (result.requestState !== undefined) current.requestState = result.requestState
  }
}
