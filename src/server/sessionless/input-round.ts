import { ErrorCode, JsonRpcError } from '../../jsonrpc/index.js'
import type { ClientCapabilities } from '../../schema/capabilities.js'

/** A question to the client inside an input-required result. */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list'
  params: Record<string, unknown>
}

/**
 * Thrown (as a rejection) by `elicit`, `createMessage` and `listRoots` in a 2026-07-28 request
 * whose answer has not come yet: the handler stops there, and the request is answered with an
 * input-required result asking every question the handler reached. Handlers need not catch it.
 */
export class InputRequired extends Error {
  override name = 'InputRequired'
  constructor() {
    super('the client has to answer a question first (multi-round request)')
  }
}

const CAPABILITY: Record<InputRequest['method'], keyof ClientCapabilities> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
}

const PREFIX: Record<InputRequest['method'], string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
}

/**
 * The questions and answers of one run of a handler in a multi-round request. The handler runs
 * from the start on every retry; a question it asked before is answered from what the client
 * sent (or what earlier rounds gathered), a new one is collected for the next input-required result.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 */
export class InputRound {
  readonly #answers: ReadonlyMap<string, unknown>
  readonly #capabilities: ClientCapabilities
  // made on first use: most runs ask nothing, and this is built for every tools/call
  #asked: Map<string, InputRequest> | undefined
  #used: Map<string, unknown> | undefined
  #counters: Map<string, number> | undefined

  constructor(answers: ReadonlyMap<string, unknown>, capabilities: ClientCapabilities) {
    this.#answers = answers
    this.#capabilities = capabilities
  }

  /** Questions asked in this run that have no answer yet. */
  get asked(): ReadonlyMap<string, InputRequest> {
    return this.#asked ?? NONE
  }

  /** Answers this run consumed: they travel on in the next requestState. */
  get used(): ReadonlyMap<string, unknown> {
    return this.#used ?? NONE
  }

  ask<T>(request: InputRequest, key: string | undefined, accept: (answer: unknown) => answer is T): Promise<T> {
    const capability = CAPABILITY[request.method]
    if (this.#capabilities[capability] === undefined) {
      return Promise.reject(
        new JsonRpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${capability} (for ${request.method})`, {
          requiredCapabilities: { [capability]: {} },
        }),
      )
    }
    const name = key ?? this.#nextKey(request.method)
    const answer = this.#answers.get(name)
    if (answer !== undefined && accept(answer)) {
      ;(this.#used ??= new Map()).set(name, answer)
      return Promise.resolve(answer)
    }
    // no answer, or one that is not an answer to this question: ask (again)
    ;(this.#asked ??= new Map()).set(name, request)
    return Promise.reject(new InputRequired())
  }

  #nextKey(method: InputRequest['method']): string {
    this.#counters ??= new Map()
    const n = (this.#counters.get(method) ?? 0) + 1
    this.#counters.set(method, n)
    return `${PREFIX[method]}-${n}`
  }
}

const NONE: ReadonlyMap<string, never> = new Map<string, never>()
