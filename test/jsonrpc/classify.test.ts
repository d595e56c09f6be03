import { describe, expect, it } from 'vitest'
import { ErrorCode, JsonRpcError, classifyMessage, isNotification, isRequest, isResponse, salvageId, type JsonRpcMessage } from '../../src/jsonrpc/index.js'

/** Run classifyMessage and return the JsonRpcError it throws (fails the test when it does not). */
function refusal(value: unknown): JsonRpcError {
  try {
    classifyMessage(value)
  } catch (error) {
    expect(error).toBeInstanceOf(JsonRpcError)
    return error as JsonRpcError
  }
  throw new Error(`classifyMessage accepted ${JSON.stringify(value)}`)
}

describe('classifyMessage', () => {
  it('classifies a request with an integer id', () => {
    const message = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { cursor: 'c' } }
    expect(classifyMessage(message)).toEqual({ kind: 'request', message })
  })

  it('classifies a request with a string id and no params', () => {
    const message = { jsonrpc: '2.0', id: 'abc', method: 'ping' }
    expect(classifyMessage(message)).toEqual({ kind: 'request', message })
  })

  it('classifies a notification (no id)', () => {
    const message = { jsonrpc: '2.0', method: 'notifications/initialized' }
    expect(classifyMessage(message)).toEqual({ kind: 'notification', message })
  })

  it('classifies a result response', () => {
    const message = { jsonrpc: '2.0', id: 1, result: { tools: [] } }
    expect(classifyMessage(message)).toEqual({ kind: 'response', message })
  })

  it('classifies an error response, including one with a null id', () => {
    const message = { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found', data: { x: 1 } } }
    expect(classifyMessage(message)).toEqual({ kind: 'response', message })
    const nullId = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }
    expect(classifyMessage(nullId)).toEqual({ kind: 'response', message: nullId })
  })

  it.each([
    ['a string', 'hello'],
    ['a number', 42],
    ['null', null],
    ['true', true],
    ['an array', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]],
  ])('refuses %s with -32600 and no id', (_label, value) => {
    const error = refusal(value)
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(salvageId((error.data as { id?: unknown } | undefined)?.id)).toBeNull()
  })

  it('refuses an object that is neither request, notification nor response', () => {
    const error = refusal({ jsonrpc: '2.0', id: 1 })
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(error.message).toMatch(/not a request, notification or response/)
  })

  it('refuses a request without jsonrpc and salvages its id', () => {
    const error = refusal({ id: 'abc', method: 'ping' })
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(error.message).toMatch(/jsonrpc/)
    expect(error.data).toEqual({ id: 'abc' })
  })

  it('refuses a request with the wrong jsonrpc version and salvages its id', () => {
    const error = refusal({ jsonrpc: '1.0', id: 5, method: 'ping' })
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(error.message).toBe('Invalid Request: jsonrpc: must be "2.0", got a string')
    expect(error.data).toEqual({ id: 5 })
  })

  it('refuses a notification with the wrong jsonrpc version', () => {
    const error = refusal({ jsonrpc: 2, method: 'notifications/initialized' })
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(error.data).toEqual({ id: null })
  })

  it('refuses a request with a null id, with a null id in the error', () => {
    const error = refusal({ jsonrpc: '2.0', id: null, method: 'ping' })
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(error.message).toMatch(/id/)
    expect(error.data).toEqual({ id: null })
  })

  it('refuses a request with a fractional id and does not salvage it', () => {
    const error = refusal({ jsonrpc: '2.0', id: 1.5, method: 'ping' })
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(error.data).toEqual({ id: null })
  })

  it('refuses a request with an object id', () => {
    const error = refusal({ jsonrpc: '2.0', id: { n: 1 }, method: 'ping' })
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(error.data).toEqual({ id: null })
  })

  it('refuses a request whose method is not a string and salvages its id', () => {
    const error = refusal({ jsonrpc: '2.0', id: 9, method: 42 })
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(error.message).toBe('Invalid Request: method: must be a string, got an integer')
    expect(error.data).toEqual({ id: 9 })
  })

  it.each([
    ['an array', [1, 2]],
    ['a string', 'x'],
    ['null', null],
    ['a number', 3],
  ])('refuses a request whose params are %s and salvages its id', (_label, params) => {
    const error = refusal({ jsonrpc: '2.0', id: 'p', method: 'tools/call', params })
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(error.message).toMatch(/params/)
    expect(error.data).toEqual({ id: 'p' })
  })

  it('refuses a notification whose params are not an object', () => {
    const error = refusal({ jsonrpc: '2.0', method: 'notifications/progress', params: [1] })
    expect(error.code).toBe(ErrorCode.InvalidRequest)
    expect(error.message).toMatch(/params/)
  })

  it('refuses a response that has both result and error', () => {
    const error = refusal({ jsonrpc: '2.0', id: 1, result: {}, error: { code: -32603, message: 'x' } })
    expect(error.code).toBe(ErrorCode.InvalidRequest)
  })

  it('refuses a result response whose result is not an object', () => {
    expect(refusal({ jsonrpc: '2.0', id: 1, result: 'ok' }).code).toBe(ErrorCode.InvalidRequest)
    expect(refusal({ jsonrpc: '2.0', id: 1, result: [] }).code).toBe(ErrorCode.InvalidRequest)
  })

  it('refuses a result response with a null id', () => {
    expect(refusal({ jsonrpc: '2.0', id: null, result: {} }).code).toBe(ErrorCode.InvalidRequest)
  })

  it('refuses an error response whose error object is malformed', () => {
    expect(refusal({ jsonrpc: '2.0', id: 1, error: { message: 'no code' } }).code).toBe(ErrorCode.InvalidRequest)
    const fractional = refusal({ jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } })
    expect(fractional.code).toBe(ErrorCode.InvalidRequest)
    expect(fractional.message).toBe('Invalid Request: error.code: must be an integer, got a fractional number')
    expect(refusal({ jsonrpc: '2.0', id: 1, error: 'boom' }).code).toBe(ErrorCode.InvalidRequest)
  })

  it('hands a well-formed message through as decoded, without copying it', () => {
    const decoded = { jsonrpc: '2.0', id: 1, method: 'ping', params: { a: 1 }, extra: true }
    const classified = classifyMessage(decoded)
    expect(classified).toEqual({ kind: 'request', message: decoded })
    expect(classified.message).toBe(decoded)
  })
})

describe('salvageId', () => {
  it('keeps string and integer ids', () => {
    expect(salvageId('a')).toBe('a')
    expect(salvageId(0)).toBe(0)
    expect(salvageId(-3)).toBe(-3)
  })

  it('gives null for anything that is not a valid id', () => {
    for (const value of [null, undefined, 1.5, {}, [], true]) expect(salvageId(value)).toBeNull()
  })
})

describe('message type guards', () => {
  const request: JsonRpcMessage = { jsonrpc: '2.0', id: 1, method: 'ping' }
  const notification: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/initialized' }
  const response: JsonRpcMessage = { jsonrpc: '2.0', id: 1, result: {} }

  it('tells requests, notifications and responses apart', () => {
    expect([isRequest(request), isNotification(request), isResponse(request)]).toEqual([true, false, false])
    expect([isRequest(notification), isNotification(notification), isResponse(notification)]).toEqual([false, true, false])
    expect([isRequest(response), isNotification(response), isResponse(response)]).toEqual([false, false, true])
  })
})
