import type { IncomingMessage } from 'node:http'
import { ErrorCode, JsonRpcError, classifyMessage, type JsonRpcMessage, type RequestId } from '../../jsonrpc/index.js'
import type { AuthInfo } from '../../protocol/context.js'
import type { MessageExtra } from '../../protocol/transport.js'
import { allowsBatch } from '../../schema/versions.js'
import { HttpError } from '../../net/http-error.js'

/** A POST body checked as JSON-RPC: its messages, which are requests, and whether it was a batch. */
export interface JsonRpcBody {
  batch: boolean
  messages: JsonRpcMessage[]
  requestIds: RequestId[]
}

/** Validate every message of a decoded body; anything invalid is a 400 with the JSON-RPC code. */
export function classifyBody(body: unknown): JsonRpcBody {
  const batch = Array.isArray(body)
  const values: unknown[] = batch ? body : [body]
  if (values.length === 0) throw new HttpError(400, 'Invalid Request: empty batch', { rpcCode: ErrorCode.InvalidRequest })
  const messages: JsonRpcMessage[] = []
  const requestIds: RequestId[] = []
  for (const value of values) {
    let classified
    try {
      classified = classifyMessage(value)
    } catch (error) {
      const rpc = JsonRpcError.from(error)
      throw new HttpError(400, rpc.message, { rpcCode: rpc.code })
    }
    messages.push(classified.message)
    if (classified.kind === 'request') requestIds.push(classified.message.id)
  }
  return { batch, messages, requestIds }
}

/** 400 for a batch on a protocol version that has none (2025-06-18 and later, 2024-11-05). */
export function refuseBatchUnlessAllowed(batch: boolean, protocolVersion: string | undefined): void {
  if (batch && !allowsBatch(protocolVersion)) {
    throw new HttpError(400, `Invalid Request: JSON-RPC batches are not supported in protocol version ${protocolVersion}`, { rpcCode: ErrorCode.InvalidRequest })
  }
}

/** What handlers learn about the HTTP request: its headers, and credentials an auth layer set. */
export function requestExtra(req: IncomingMessage & { auth?: AuthInfo }): MessageExtra {
  const extra: MessageExtra = { headers: req.headers }
  if (req.auth !== undefined) extra.authInfo = req.auth
  return extra
}
