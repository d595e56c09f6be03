import { z } from 'zod'

/** The JSON-RPC version string every message carries. */
export const JSONRPC_VERSION = '2.0'

/** A request id: string or integer, never null (MCP basic §requests). */
export const RequestIdSchema = z.union([z.string(), z.number().int()])
export type RequestId = z.infer<typeof RequestIdSchema>

const ParamsSchema = z.record(z.string(), z.unknown())

export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal(JSONRPC_VERSION),
  id: RequestIdSchema,
  method: z.string(),
  params: ParamsSchema.optional(),
})

export const JsonRpcNotificationSchema = z.object({
  jsonrpc: z.literal(JSONRPC_VERSION),
  method: z.string(),
  params: ParamsSchema.optional(),
})

export const JsonRpcErrorObjectSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
})

export const JsonRpcResultResponseSchema = z.object({
  jsonrpc: z.literal(JSONRPC_VERSION),
  id: RequestIdSchema,
  result: z.record(z.string(), z.unknown()),
})

export const JsonRpcErrorResponseSchema = z.object({
  jsonrpc: z.literal(JSONRPC_VERSION),
  // null only when the request id could not be determined (parse error, invalid request)
  id: RequestIdSchema.nullable(),
  error: JsonRpcErrorObjectSchema,
})

export type JsonRpcParams = z.infer<typeof ParamsSchema>
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>
export type JsonRpcNotification = z.infer<typeof JsonRpcNotificationSchema>
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObjectSchema>
export type JsonRpcResultResponse = z.infer<typeof JsonRpcResultResponseSchema>
export type JsonRpcErrorResponse = z.infer<typeof JsonRpcErrorResponseSchema>
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse
/** What a transport carries: one message, or (2025-03-26 only) a batch. */
export type JsonRpcPayload = JsonRpcMessage | JsonRpcMessage[]
