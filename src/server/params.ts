import { ErrorCode, JsonRpcError, type JsonRpcParams } from '../jsonrpc/index.js'

/** Read a required string parameter, or refuse the request with -32602. */
export function requireString(params: JsonRpcParams, name: string): string {
  const value = params[name]
  if (typeof value !== 'string') throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${name} must be a string`)
  return value
}

/** Read an optional object parameter, or refuse the request with -32602. */
export function optionalObject(params: JsonRpcParams, name: string): Record<string, unknown> | undefined {
  const value = params[name]
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${name} must be an object`)
  }
  return value as Record<string, unknown>
}
