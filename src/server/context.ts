import type { RequestContext } from '../protocol/context.js'
import type { RequestOptions } from '../protocol/request-options.js'
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ListRootsResult,
  LoggingLevel,
} from '../schema/features.js'
import type { ServerSession } from './server-session.js'

/**
 * What every server-side handler (tool, resource, prompt, completer) receives: the request
 * context (AbortSignal, progress, auth info) plus ways to reach the client on behalf of this
 * request. Requests made here travel on the same HTTP stream as the request being handled.
 */
export interface ServerContext extends RequestContext {
  session: ServerSession
  /** Send `notifications/message`, filtered by the level the client set. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>
  /** sampling/createMessage: ask the client's model for a completion. */
  createMessage(params: CreateMessageParams, options?: RequestOptions): Promise<CreateMessageResult>
  /** elicitation/create: ask the user for input, through the client. */
  elicit(params: ElicitParams, options?: RequestOptions): Promise<ElicitResult>
  /** roots/list: the client's filesystem roots. */
  listRoots(options?: RequestOptions): Promise<ListRootsResult>
}

export function createServerContext(session: ServerSession, base: RequestContext): ServerContext {
  const related = (options: RequestOptions | undefined): RequestOptions => ({
    ...options,
    relatedRequestId: base.requestId,
    signal: options?.signal ?? base.signal,
  })
  return {
    ...base,
    session,
    log: (level, data, logger) => session.log(level, data, logger, { relatedRequestId: base.requestId }),
    createMessage: (params, options) => session.createMessage(params, related(options)),
    elicit: (params, options) => session.elicit(params, related(options)),
    listRoots: (options) => session.listRoots(related(options)),
  }
}
