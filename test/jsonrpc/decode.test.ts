import { describe, expect, it } from 'vitest'
import { ErrorCode, JsonRpcError, decodeJson, errorResponse } from '../../src/jsonrpc/index.js'

describe('decodeJson', () => {
  it('decodes any JSON value without judging it', () => {
    expect(decodeJson('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' })
    expect(decodeJson('[1,2]')).toEqual([1, 2])
    expect(decodeJson('"text"')).toBe('text')
  })

  it.each(['{"jsonrpc":', '', 'not json', "{'a':1}", '{"a":1}}'])('throws -32700 for %j', (text) => {
    let thrown: unknown
    try {
      decodeJson(text)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(JsonRpcError)
    expect((thrown as JsonRpcError).code).toBe(ErrorCode.ParseError)
    expect((thrown as JsonRpcError).cause).toBeInstanceOf(SyntaxError)
  })
})

describe('errorResponse', () => {
  it('builds an error response with the id and the wire form of the error', () => {
    const response = errorResponse(4, new JsonRpcError(ErrorCode.InvalidParams, 'bad', { field: 'x' }))
    expect(response).toEqual({ jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'bad', data: { field: 'x' } } })
  })

  it('uses a null id when the request id is unknown and omits absent data', () => {
    const response = errorResponse(null, new JsonRpcError(ErrorCode.ParseError, 'Parse error'))
    expect(response).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
    expect('data' in response.error).toBe(false)
  })
})
