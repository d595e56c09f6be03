import { ErrorCode, JsonRpcError } from '../jsonrpc/index.js'

/** What a client sends instead of a method the sessionless revision (2026-07-28) removed. */
const INSTEAD: Readonly<Record<string, string>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, string>, {
    ping: 'send server/discover to check that the server answers',
    initialize: "send server/discover, and the protocol version and capabilities in every request's _meta",
    'logging/setLevel': 'set io.modelcontextprotocol/logLevel in the _meta of the requests whose logs you want',
    'resources/subscribe': 'open a subscriptions/listen stream with the resource in its filter',
    'resources/unsubscribe': 'close the subscriptions/listen stream, or open one without the resource',
  }),
)

/**
 * The refusal of a request for a method `version` removed (`ping` on 2026-07-28): -32601, as the
 * official SDK v2 server and the conformance suite answer it (HTTP 404), with what to send instead.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/changelog
 */
export function removedMethodError(version: string, method: string): JsonRpcError {
  const instead = INSTEAD[method]
  return new JsonRpcError(
    ErrorCode.MethodNotFound,
    `Method not found: ${method} is not part of protocol version ${version}, which removed it${instead === undefined ? '' : `; ${instead}`}`,
  )
}
