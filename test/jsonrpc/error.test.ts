import { describe, expect, it } from 'vitest'
import { ErrorCode, JsonRpcError } from '../../src/jsonrpc/index.js'

describe('JsonRpcError', () => {
  it('serialises to the wire error object', () => {
    expect(new JsonRpcError(ErrorCode.ResourceNotFound, 'Resource not found', { uri: 'x:/' }).toJSON()).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'x:/' },
    })
    expect(JSON.parse(JSON.stringify(new JsonRpcError(-32601, 'nope')))).toEqual({ code: -32601, message: 'nope' })
  })

  it('rebuilds an error received from the peer', () => {
    const error = JsonRpcError.fromObject({ code: -32602, message: 'Invalid params', data: [1] })
    expect(error).toBeInstanceOf(JsonRpcError)
    expect([error.code, error.message, error.data]).toEqual([-32602, 'Invalid params', [1]])
  })

  it('from() keeps a JsonRpcError as it is', () => {
    const original = new JsonRpcError(ErrorCode.InvalidParams, 'bad', { a: 1 })
    expect(JsonRpcError.from(original)).toBe(original)
  })

  it('from() maps any other Error to -32603 with its message and cause', () => {
    const original = new TypeError('disk on fire')
    const mapped = JsonRpcError.from(original)
    expect(mapped.code).toBe(ErrorCode.InternalError)
    expect(mapped.message).toBe('disk on fire')
    expect(mapped.cause).toBe(original)
    expect(mapped.data).toBeUndefined()
  })

  it('from() maps thrown non-errors and empty messages to -32603', () => {
    expect(JsonRpcError.from('oops').toJSON()).toEqual({ code: -32603, message: 'oops' })
    expect(JsonRpcError.from(new Error('')).toJSON()).toEqual({ code: -32603, message: 'Internal error' })
  })
})
