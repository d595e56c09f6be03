/** The JSON-RPC version string every message carries. */
export const JSONRPC_VERSION = '2.0'

/** A request id: string or integer, never null (MCP basic §requests). */
export type RequestId = string | number

export type JsonRpcParams = Record<string, unknown>

export type JsonRpcRequest = {
  jsonrpc: typeof JSONRPC_VERSION
  id: RequestId
  method: string
  params?: JsonRpcParams | undefined
}

export type JsonRpcNotification = {
  jsonrpc: typeof JSONRPC_VERSION
  method: string
  params?: JsonRpcParams | undefined
}

export type JsonRpcErrorObject = {
  code: number
  message: string
  data?: unknown
}

export type JsonRpcResultResponse = {
  jsonrpc: typeof JSONRPC_VERSION
  id: RequestId
  result: Record<string, unknown>
}

export type JsonRpcErrorResponse = {
  jsonrpc: typeof JSONRPC_VERSION
  /** null only when the request id could not be determined (parse error, invalid request). */
  id: RequestId | null
  error: JsonRpcErrorObject
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse
/** What a transport carries: one message, or (2025-03-26 only) a batch. */
export type JsonRpcPayload = JsonRpcMessage | JsonRpcMessage[]
