import { describe, expect, it } from 'vitest'
import { ErrorCode, JsonRpcError } from '../../src/jsonrpc/index.js'
import { Endpoint } from '../../src/protocol/endpoint.js'
import { LocalError } from '../../src/protocol/errors.js'
import { InMemoryTransport } from '../../src/transports/memory/in-memory-transport.js'
import { connectEndpoints, connectToRecorder, deferred, responsesFor, settle } from '../helpers/endpoint-pair.js'

describe('Endpoint: malformed input', () => {
  it.each([
    ['a string', 'hello'],
    ['a number', 12],
    ['null', null],
    ['an object without jsonrpc members', { foo: 'bar' }],
  ])('answers %s with -32600 and id null without throwing', async (_label, value) => {
    const rec = await connectToRecorder()
    expect(() => rec.inject(value)).not.toThrow()
    await settle()
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message: expect.any(String) } }])
    expect(rec.errors.length).toBeGreaterThan(0)
  })

  it('answers an invalid request with -32600 and the salvaged id', async () => {
    const rec = await connectToRecorder()
    rec.inject({ jsonrpc: '1.0', id: 'r1', method: 'ping' })
    await settle()
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 'r1', error: { code: ErrorCode.InvalidRequest, message: expect.stringMatching(/jsonrpc/) } }])
  })

  it('answers a request with a null id with -32600 and id null', async () => {
    const rec = await connectToRecorder()
    rec.inject({ jsonrpc: '2.0', id: null, method: 'ping' })
    await settle()
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message: expect.any(String) } }])
  })

  it('answers a request whose params are an array with -32600 and its id', async () => {
    const rec = await connectToRecorder()
    let called = false
    rec.endpoint.setRequestHandler('tools/call', () => {
      called = true
      return {}
    })
    rec.inject({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: ['x'] })
    await settle()
    expect(called).toBe(false)
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 3, error: { code: ErrorCode.InvalidRequest, message: expect.stringMatching(/params/) } }])
  })

  it('keeps working after malformed input', async () => {
    const rec = await connectToRecorder()
    rec.inject('garbage')
    rec.inject({ jsonrpc: '2.0', id: 1, method: 'ping' })
    await settle()
    expect(responsesFor(rec.sent, 1)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }])
  })
})

describe('Endpoint: dispatching requests', () => {
  it('answers ping with an empty result', async () => {
    const { a } = await connectEndpoints()
    await expect(a.request('ping')).resolves.toEqual({})
  })

  it('answers ping on the wire with {} and the request id', async () => {
    const rec = await connectToRecorder()
    await rec.send({ jsonrpc: '2.0', id: 'p-1', method: 'ping' })
    await settle()
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 'p-1', result: {} }])
  })

  it('passes params and context to the handler and returns its result', async () => {
    const { a, b } = await connectEndpoints()
    b.setRequestHandler('echo', (params, context) => ({ params, method: context.method, id: context.requestId }))
    const result = await a.request('echo', { text: 'hi' })
    expect(result).toEqual({ params: { text: 'hi' }, method: 'echo', id: 0 })
  })

  it('gives the handler empty params when the request has none', async () => {
    const { a, b } = await connectEndpoints()
    let seen: unknown
    b.setRequestHandler('noparams', (params) => {
      seen = params
      return { ok: true }
    })
    await expect(a.request('noparams')).resolves.toEqual({ ok: true })
    expect(seen).toEqual({})
  })

  it('answers {} when an async handler resolves to undefined', async () => {
    const { a, b } = await connectEndpoints()
    b.setRequestHandler('void', async () => undefined)
    await expect(a.request('void')).resolves.toEqual({})
  })

  it('answers an unknown method with -32601', async () => {
    const rec = await connectToRecorder()
    await rec.send({ jsonrpc: '2.0', id: 2, method: 'no/such/method' })
    await settle()
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 2, error: { code: ErrorCode.MethodNotFound, message: 'Method not found: no/such/method' } }])
  })

  it('rejects the caller with the peer -32601 as a JsonRpcError', async () => {
    const { a } = await connectEndpoints()
    const error = await a.request('missing').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(JsonRpcError)
    expect((error as JsonRpcError).code).toBe(ErrorCode.MethodNotFound)
  })

  it('answers -32601 after a handler is removed', async () => {
    const { a, b } = await connectEndpoints()
    b.setRequestHandler('gone', () => ({}))
    expect(b.hasRequestHandler('gone')).toBe(true)
    b.removeRequestHandler('gone')
    expect(b.hasRequestHandler('gone')).toBe(false)
    await expect(a.request('gone')).rejects.toMatchObject({ code: ErrorCode.MethodNotFound })
  })

  it('keeps the code and data of a thrown JsonRpcError', async () => {
    const rec = await connectToRecorder()
    rec.endpoint.setRequestHandler('fail', () => {
      throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: x', { field: 'x' })
    })
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'fail' })
    await settle()
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: x', data: { field: 'x' } } }])
  })

  it('keeps the code and data of a JsonRpcError an async handler rejects with, up to the caller', async () => {
    const { a, b } = await connectEndpoints()
    b.setRequestHandler('fail', async () => {
      throw new JsonRpcError(ErrorCode.ResourceNotFound, 'Resource not found', { uri: 'file:///x' })
    })
    const error = (await a.request('fail').catch((e: unknown) => e)) as JsonRpcError
    expect(error).toBeInstanceOf(JsonRpcError)
    expect([error.code, error.message, error.data]).toEqual([ErrorCode.ResourceNotFound, 'Resource not found', { uri: 'file:///x' }])
  })

  it('maps any other thrown Error to -32603 with its message', async () => {
    const rec = await connectToRecorder()
    rec.endpoint.setRequestHandler('sync', () => {
      throw new TypeError('disk on fire')
    })
    rec.endpoint.setRequestHandler('async', async () => {
      throw new Error('network down')
    })
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'sync' })
    await rec.send({ jsonrpc: '2.0', id: 2, method: 'async' })
    await settle()
    expect(responsesFor(rec.sent, 1)).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'disk on fire' } }])
    expect(responsesFor(rec.sent, 2)).toEqual([{ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'network down' } }])
  })

  it('answers -32603 when a handler returns something that is not an object', async () => {
    const rec = await connectToRecorder()
    rec.endpoint.setRequestHandler('number', () => 42)
    rec.endpoint.setRequestHandler('array', () => [1, 2])
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'number' })
    await rec.send({ jsonrpc: '2.0', id: 2, method: 'array' })
    await settle()
    expect(responsesFor(rec.sent, 1)).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32603, message: expect.any(String) } }])
    expect(responsesFor(rec.sent, 2)).toEqual([{ jsonrpc: '2.0', id: 2, error: { code: -32603, message: expect.any(String) } }])
  })

  it('refuses a request whose id is already in flight with -32600', async () => {
    const rec = await connectToRecorder()
    const gate = deferred()
    let calls = 0
    rec.endpoint.setRequestHandler('slow', async () => {
      calls++
      await gate.promise
      return { done: true }
    })
    await rec.send({ jsonrpc: '2.0', id: 'dup', method: 'slow' })
    await rec.send({ jsonrpc: '2.0', id: 'dup', method: 'slow' })
    await settle()
    expect(calls).toBe(1)
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 'dup', error: { code: ErrorCode.InvalidRequest, message: expect.stringMatching(/already in use/) } }])
    gate.resolve()
    await settle()
    expect(responsesFor(rec.sent, 'dup')).toHaveLength(2)
    expect(rec.sent[1]).toEqual({ jsonrpc: '2.0', id: 'dup', result: { done: true } })
  })

  it('treats numeric and string ids as different requests', async () => {
    const rec = await connectToRecorder()
    const gate = deferred()
    rec.endpoint.setRequestHandler('slow', async (params) => {
      await gate.promise
      return { n: params.n }
    })
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'slow', params: { n: 'number' } })
    await rec.send({ jsonrpc: '2.0', id: '1', method: 'slow', params: { n: 'string' } })
    await settle()
    gate.resolve()
    await settle()
    expect(responsesFor(rec.sent, 1)).toEqual([{ jsonrpc: '2.0', id: 1, result: { n: 'number' } }])
    expect(responsesFor(rec.sent, '1')).toEqual([{ jsonrpc: '2.0', id: '1', result: { n: 'string' } }])
  })

  it('refuses a request through the beforeRequest hook without running the handler', async () => {
    const rec = await connectToRecorder(
      new Endpoint({
        beforeRequest: (request) => {
          if (request.method === 'guarded') throw new JsonRpcError(ErrorCode.InvalidRequest, 'Invalid Request: not yet')
        },
      }),
    )
    let called = false
    rec.endpoint.setRequestHandler('guarded', () => {
      called = true
      return {}
    })
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'guarded' })
    await settle()
    expect(called).toBe(false)
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: not yet' } }])
  })

  it('passes the transport auth info to the handler context', async () => {
    const [aSide, bSide] = InMemoryTransport.createLinkedPair()
    const a = new Endpoint()
    const b = new Endpoint()
    bSide.authInfo = { token: 't', clientId: 'c', scopes: ['s'] }
    let seen: unknown
    b.setRequestHandler('who', (_params, context) => {
      seen = context.authInfo
      return {}
    })
    await a.connect(aSide)
    await b.connect(bSide)
    await a.request('who')
    expect(seen).toEqual({ token: 't', clientId: 'c', scopes: ['s'] })
  })

  it('lets a handler send notifications and requests to the peer on behalf of the request', async () => {
    const { a, b } = await connectEndpoints()
    const notes: unknown[] = []
    a.setNotificationHandler('notifications/message', (params) => {
      notes.push(params)
    })
    a.setRequestHandler('roots/list', () => ({ roots: [] }))
    b.setRequestHandler('work', async (_params, context) => {
      await context.sendNotification('notifications/message', { level: 'info', data: 'working' })
      const roots = await context.sendRequest('roots/list')
      return { roots }
    })
    await expect(a.request('work')).resolves.toEqual({ roots: { roots: [] } })
    expect(notes).toEqual([{ level: 'info', data: 'working' }])
  })
})

describe('Endpoint: notifications', () => {
  it('delivers a notification to its handler with its params', async () => {
    const { a, b } = await connectEndpoints()
    const seen: unknown[] = []
    b.setNotificationHandler('notifications/custom', (params) => {
      seen.push(params)
    })
    await a.notify('notifications/custom', { x: 1 })
    await a.notify('notifications/custom')
    await settle()
    expect(seen).toEqual([{ x: 1 }, {}])
  })

  it('ignores unknown notifications without answering or reporting', async () => {
    const rec = await connectToRecorder()
    await rec.send({ jsonrpc: '2.0', method: 'notifications/unknown', params: { a: 1 } })
    await settle()
    expect(rec.sent).toEqual([])
    expect(rec.errors).toEqual([])
  })

  it('reports a notification handler that throws through onerror and keeps going', async () => {
    const rec = await connectToRecorder()
    rec.endpoint.setNotificationHandler('notifications/sync', () => {
      throw new Error('sync boom')
    })
    rec.endpoint.setNotificationHandler('notifications/async', async () => {
      throw new Error('async boom')
    })
    await rec.send({ jsonrpc: '2.0', method: 'notifications/sync' })
    await rec.send({ jsonrpc: '2.0', method: 'notifications/async' })
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'ping' })
    await settle()
    expect(rec.errors.map((e) => e.message)).toEqual(['sync boom', 'async boom'])
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }])
  })

  it('refuses notify through the assertCanNotify hook without sending', async () => {
    const rec = await connectToRecorder(
      new Endpoint({
        assertCanNotify: (method) => {
          throw new LocalError('capability_not_supported', `no ${method}`)
        },
      }),
    )
    await expect(rec.endpoint.notify('notifications/message', {})).rejects.toMatchObject({ code: 'capability_not_supported' })
    await settle()
    expect(rec.sent).toEqual([])
  })

  it('refuses notify before connect with not_connected', async () => {
    await expect(new Endpoint().notify('notifications/x')).rejects.toMatchObject({ name: 'LocalError', code: 'not_connected' })
  })
})

describe('Endpoint: responses', () => {
  it('reports a response for an unknown id through onerror without crashing', async () => {
    const rec = await connectToRecorder()
    await rec.send({ jsonrpc: '2.0', id: 999, result: {} })
    await rec.send({ jsonrpc: '2.0', id: 'nope', error: { code: -32603, message: 'x' } })
    await settle()
    expect(rec.errors.map((e) => e.message)).toEqual(['received a response for unknown request id 999', 'received a response for unknown request id "nope"'])
    expect(rec.sent).toEqual([])
    // still serving
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'ping' })
    await settle()
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }])
  })

  it('reports an error response with a null id through onerror', async () => {
    const rec = await connectToRecorder()
    await rec.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
    await settle()
    expect(rec.errors.map((e) => e.message)).toEqual(['the peer reported an error: Parse error'])
    expect(rec.sent).toEqual([])
  })

  it('rejects a pending request at once when its response is malformed', async () => {
    const rec = await connectToRecorder()
    const pending = rec.endpoint.request('tools/list', {}, { timeoutMs: 10_000 })
    await settle()
    await rec.send({ jsonrpc: '2.0', id: 0, result: 'not an object' })
    const error = await pending.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LocalError)
    expect((error as LocalError).code).toBe('invalid_response')
  })

  it('ignores a second response for a request that already settled', async () => {
    const rec = await connectToRecorder()
    const pending = rec.endpoint.request('x')
    await settle()
    await rec.send({ jsonrpc: '2.0', id: 0, result: { first: true } })
    await expect(pending).resolves.toEqual({ first: true })
    await rec.send({ jsonrpc: '2.0', id: 0, result: { second: true } })
    await settle()
    expect(rec.errors.map((e) => e.message)).toEqual(['received a response for unknown request id 0'])
  })
})

describe('Endpoint: connect', () => {
  it('refuses a second transport with invalid_state', async () => {
    const { a } = await connectEndpoints()
    const [other] = InMemoryTransport.createLinkedPair()
    await expect(a.connect(other)).rejects.toMatchObject({ code: 'invalid_state' })
  })

  it('delivers messages that arrived before the endpoint connected', async () => {
    const [aSide, bSide] = InMemoryTransport.createLinkedPair()
    const a = new Endpoint()
    await a.connect(aSide)
    const answer = a.request('ping')
    await settle()
    const b = new Endpoint()
    expect(b.transport).toBeUndefined()
    await b.connect(bSide)
    expect(b.transport).toBe(bSide)
    await expect(answer).resolves.toEqual({})
  })
})

describe('Endpoint and responses it cannot use', () => {
  it('never answers an error response with id null (two peers would answer each other forever)', async () => {
    const rec = await connectToRecorder()
    rec.inject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } })
    rec.inject({ jsonrpc: '2.0', result: {} })
    await settle()
    expect(rec.sent).toEqual([])
    expect(rec.errors.length).toBeGreaterThan(0)
  })
})

describe('Endpoint: options as one object with methods', () => {
  it('calls its hooks as methods of the options object, so one object of a class can hold them all', async () => {
    const seen: string[] = []
    class Hooks {
      readonly name = 'session-1'
      beforeRequest(request: { method: string }): void {
        seen.push(`${this.name} before ${request.method}`)
      }
      unhandledNotification(method: string): void {
        seen.push(`${this.name} unhandled ${method}`)
      }
      failed(error: Error): void {
        seen.push(`${this.name} failed: ${error.message.split(':')[0]}`)
      }
      closed(): void {
        seen.push(`${this.name} closed`)
      }
    }
    const rec = await connectToRecorder(new Endpoint(new Hooks()))
    let onclose = false
    rec.endpoint.onclose = () => {
      onclose = seen.includes('session-1 closed')
    }
    rec.inject({ jsonrpc: '2.0', id: 1, method: 'ping' })
    rec.inject({ jsonrpc: '2.0', method: 'notifications/custom' })
    rec.inject('garbage')
    await settle()
    await rec.endpoint.close()
    expect(seen).toEqual(['session-1 before ping', 'session-1 unhandled notifications/custom', 'session-1 failed: invalid message received', 'session-1 closed'])
    // the hook runs before the endpoint's own onclose
    expect(onclose).toBe(true)
  })

  it('lets a fallbackNotificationHandler take unhandled notifications instead of the hook', async () => {
    const hooked: string[] = []
    const fallback: string[] = []
    const rec = await connectToRecorder(new Endpoint({ unhandledNotification: (method) => hooked.push(method) }))
    rec.endpoint.fallbackNotificationHandler = (method) => fallback.push(method)
    rec.inject({ jsonrpc: '2.0', method: 'notifications/custom' })
    await settle()
    expect(fallback).toEqual(['notifications/custom'])
    expect(hooked).toEqual([])
  })
})
