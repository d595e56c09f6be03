export { ErrorCode, type ErrorCodeValue } from './codes.js'
export { JsonRpcError } from './error.js'
export { classifyMessage, salvageId, isRequest, isNotification, isResponse, type ClassifiedMessage } from './classify.js'
export { decodeJson, errorResponse } from './decode.js'
export {
  JSONRPC_VERSION,
  type RequestId,
  type JsonRpcParams,
  type JsonRpcRequest,
  type JsonRpcNotification,
  type JsonRpcErrorObject,
  type JsonRpcResultResponse,
  type JsonRpcErrorResponse,
  type JsonRpcResponse,
  type JsonRpcMessage,
  type JsonRpcPayload,
} from './messages.js'
