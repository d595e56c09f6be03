import { describe, expect, it } from 'vitest'
import { InFlightRequests } from '../../src/protocol/cancellation.js'
import { Endpoint } from '../../src/protocol/endpoint.js'
import { LocalError } from '../../src/protocol/errors.js'
import type { Transport } from '../../src/protocol/transport.js'
import { connectEndpoints, connectToRecorder, deferred, messagesFor, responsesFor, settle } from '../helpers/endpoint-pair.js'

describe('InFlightRequests', () => {
  it('aborts the controller of a cancelled id with the reason', () => {
    const inFlight = new InFlightRequests()
    const controller = inFlight.begin(1)
    expect(inFlight.has(1)).toBe(true)
    inFlight.cancel(1, 'user hit stop')
    expect(controller.signal.aborted).toBe(true)
    expect((controller.signal.reason as Error).message).toBe('user hit stop')
  })

  it('ignores unknown ids', () => {
    const inFlight = new InFlightRequests()
    const controller = inFlight.begin(1)
    expect(() => inFlight.cancel(2, 'x')).not.toThrow()
    expect(controller.signal.aborted).toBe(false)
  })

  it('end forgets only the controller it was given', () => {
    const inFlight = new InFlightRequests()
    const first = inFlight.begin(1)
    inFlight.end(1, new InFlightRequests().begin(1))
    expect(inFlight.has(1)).toBe(true)
    inFlight.end(1, first)
    expect(inFlight.has(1)).toBe(false)
  })

  it('ignores cancel for a request begun as not cancellable, but abortAll still aborts it', () => {
    const inFlight = new InFlightRequests()
    const controller = inFlight.begin(0, { cancellable: false })
    inFlight.cancel(0, 'please stop')
    expect(controller.signal.aborted).toBe(false)
    inFlight.abortAll('closing')
    expect(controller.signal.aborted).toBe(true)
  })

  it('abortAll aborts every controller and forgets them', () => {
    const inFlight = new InFlightRequests()
    const controllers = [inFlight.begin(1), inFlight.begin('two')]
    inFlight.abortAll('closing')
    expect(controllers.map((c) => c.signal.aborted)).toEqual([true, true])
    expect(inFlight.has(1) || inFlight.has('two')).toBe(false)
  })
})

describe('Endpoint: inbound cancellation', () => {
  it('cancels the handler when notifications/cancelled arrives and sends no response for it', async () => {
    const rec = await connectToRecorder()
    const started = deferred()
    let signal: AbortSignal | undefined
    rec.endpoint.setRequestHandler('slow', (_params, context) => {
      signal = context.signal
      started.resolve()
      return new Promise((resolve) => context.signal.addEventListener('abort', () => resolve({ partial: true })))
    })
    await rec.send({ jsonrpc: '2.0', id: 'job-1', method: 'slow' })
    await started.promise
    expect(signal?.aborted).toBe(false)
    await rec.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'job-1', reason: 'no longer needed' } })
    await settle()
    expect(signal?.aborted).toBe(true)
    expect((signal!.reason as Error).message).toBe('no longer needed')
    expect(responsesFor(rec.sent, 'job-1')).toEqual([])
    expect(rec.sent).toEqual([])
  })

  it('sends no response either when a cancelled handler rejects', async () => {
    const rec = await connectToRecorder()
    rec.endpoint.setRequestHandler('slow', (_params, context) => new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason))))
    await rec.send({ jsonrpc: '2.0', id: 4, method: 'slow' })
    await settle()
    await rec.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } })
    await settle()
    expect(rec.sent).toEqual([])
  })

  it('ignores notifications/cancelled for an unknown request id', async () => {
    const rec = await connectToRecorder()
    const gate = deferred()
    let signal: AbortSignal | undefined
    rec.endpoint.setRequestHandler('slow', async (_params, context) => {
      signal = context.signal
      await gate.promise
      return { finished: true }
    })
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'slow' })
    await rec.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99, reason: 'x' } })
    await rec.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '1', reason: 'wrong type' } })
    await rec.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} })
    await settle()
    expect(signal?.aborted).toBe(false)
    gate.resolve()
    await settle()
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 1, result: { finished: true } }])
    expect(rec.errors).toEqual([])
  })

  it('ignores notifications/cancelled for a request that already finished', async () => {
    const rec = await connectToRecorder()
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'ping' })
    await settle()
    await rec.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })
    await settle()
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }])
    expect(rec.errors).toEqual([])
  })

  it('never cancels an inbound initialize: it is still answered', async () => {
    const rec = await connectToRecorder()
    const gate = deferred()
    let signal: AbortSignal | undefined
    rec.endpoint.setRequestHandler('initialize', async (_params, context) => {
      signal = context.signal
      await gate.promise
      return { protocolVersion: '2025-11-25' }
    })
    await rec.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} })
    await settle()
    await rec.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0, reason: 'nope' } })
    await settle()
    expect(signal?.aborted).toBe(false)
    gate.resolve()
    await settle()
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25' } }])
  })

  it('aborts the requests a handler made on behalf of a cancelled request', async () => {
    const { a, b } = await connectEndpoints()
    const nestedStarted = deferred()
    let nestedSignal: AbortSignal | undefined
    a.setRequestHandler('nested', (_params, context) => {
      nestedSignal = context.signal
      nestedStarted.resolve()
      return new Promise(() => {})
    })
    let nestedOutcome: Promise<unknown> | undefined
    b.setRequestHandler('outer', (_params, context) => {
      nestedOutcome = context.sendRequest('nested').catch((e: unknown) => e)
      return new Promise(() => {})
    })
    const controller = new AbortController()
    const outer = a.request('outer', {}, { signal: controller.signal }).catch((e: unknown) => e)
    await nestedStarted.promise
    controller.abort(new Error('stop everything'))
    expect(await outer).toMatchObject({ code: 'request_cancelled' })
    await settle()
    expect(await nestedOutcome).toMatchObject({ code: 'request_cancelled' })
    expect(nestedSignal?.aborted).toBe(true)
  })
})

describe('Endpoint: outgoing cancellation', () => {
  it('sends notifications/cancelled with requestId and reason and rejects with request_cancelled', async () => {
    const rec = await connectToRecorder()
    const controller = new AbortController()
    const outcome = rec.endpoint.request('slow', {}, { signal: controller.signal }).catch((e: unknown) => e)
    await settle()
    controller.abort(new Error('user hit stop'))
    const error = await outcome
    expect(error).toBeInstanceOf(LocalError)
    expect((error as LocalError).code).toBe('request_cancelled')
    await settle()
    expect(messagesFor(rec.sent, 'notifications/cancelled')).toEqual([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0, reason: 'user hit stop' } }])
  })

  it('uses a string abort reason as the cancellation reason', async () => {
    const rec = await connectToRecorder()
    const controller = new AbortController()
    const outcome = rec.endpoint.request('slow', {}, { signal: controller.signal }).catch((e: unknown) => e)
    controller.abort('changed my mind')
    expect(await outcome).toMatchObject({ code: 'request_cancelled' })
    await settle()
    expect(messagesFor(rec.sent, 'notifications/cancelled')[0]?.params).toEqual({ requestId: 0, reason: 'changed my mind' })
  })

  it('makes the peer handler see the abort through the two endpoints', async () => {
    const { a, b } = await connectEndpoints()
    const started = deferred()
    const aborted = deferred<string>()
    b.setRequestHandler('slow', (_params, context) => {
      context.signal.addEventListener('abort', () => aborted.resolve((context.signal.reason as Error).message))
      started.resolve()
      return new Promise(() => {})
    })
    const controller = new AbortController()
    const outcome = a.request('slow', {}, { signal: controller.signal }).catch((e: unknown) => e)
    await started.promise
    controller.abort(new Error('bored'))
    expect(await outcome).toMatchObject({ code: 'request_cancelled' })
    expect(await aborted.promise).toBe('bored')
  })

  it('rejects at once without sending anything when the signal is already aborted', async () => {
    const rec = await connectToRecorder()
    const error = await rec.endpoint.request('slow', {}, { signal: AbortSignal.abort() }).catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'LocalError', code: 'request_cancelled' })
    await settle()
    expect(rec.sent).toEqual([])
  })

  it('does nothing when the signal aborts after the response arrived', async () => {
    const rec = await connectToRecorder()
    const controller = new AbortController()
    const outcome = rec.endpoint.request('quick', {}, { signal: controller.signal })
    await settle()
    await rec.send({ jsonrpc: '2.0', id: 0, result: { ok: 1 } })
    await expect(outcome).resolves.toEqual({ ok: 1 })
    controller.abort()
    await settle()
    expect(messagesFor(rec.sent, 'notifications/cancelled')).toEqual([])
  })

  it('never sends notifications/cancelled for initialize, but still rejects the caller', async () => {
    const rec = await connectToRecorder()
    const controller = new AbortController()
    const outcome = rec.endpoint.request('initialize', { protocolVersion: '2025-11-25' }, { signal: controller.signal }).catch((e: unknown) => e)
    await settle()
    controller.abort(new Error('give up'))
    expect(await outcome).toMatchObject({ code: 'request_cancelled' })
    await settle()
    expect(messagesFor(rec.sent, 'initialize')).toHaveLength(1)
    expect(messagesFor(rec.sent, 'notifications/cancelled')).toEqual([])
  })

  it('tags the cancellation with the related request id it was made for', async () => {
    const sendOptions: unknown[] = []
    const rec = await connectToRecorder(new Endpoint())
    const transport: Transport = rec.endpointSide
    const originalSend = transport.send.bind(transport)
    transport.send = (payload, options) => {
      sendOptions.push({ method: (payload as { method?: string }).method, options })
      return originalSend(payload)
    }
    const controller = new AbortController()
    const outcome = rec.endpoint.request('sampling/createMessage', {}, { signal: controller.signal, relatedRequestId: 'inbound-7' }).catch((e: unknown) => e)
    controller.abort()
    await outcome
    await settle()
    expect(sendOptions).toEqual([
      { method: 'sampling/createMessage', options: { relatedRequestId: 'inbound-7' } },
      { method: 'notifications/cancelled', options: { relatedRequestId: 'inbound-7' } },
    ])
  })
})
