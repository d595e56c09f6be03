import { describe, expect, it } from 'vitest'
import { Endpoint } from '../../src/protocol/endpoint.js'
import { LocalError } from '../../src/protocol/errors.js'
import type { Transport } from '../../src/protocol/transport.js'
import { connectEndpoints, connectToRecorder, deferred, messagesFor, settle } from '../helpers/endpoint-pair.js'

describe('Endpoint: closing', () => {
  it('rejects pending requests with connection_closed when the transport closes', async () => {
    const rec = await connectToRecorder()
    const first = rec.endpoint.request('a').catch((e: unknown) => e)
    const second = rec.endpoint.request('b').catch((e: unknown) => e)
    await settle()
    await rec.wire.close()
    for (const outcome of [await first, await second]) {
      expect(outcome).toBeInstanceOf(LocalError)
      expect((outcome as LocalError).code).toBe('connection_closed')
    }
  })

  it('rejects pending requests with connection_closed when the endpoint itself closes, and sends no cancellation', async () => {
    const rec = await connectToRecorder()
    const outcome = rec.endpoint.request('a').catch((e: unknown) => e)
    await settle()
    await rec.endpoint.close()
    expect(await outcome).toMatchObject({ name: 'LocalError', code: 'connection_closed' })
    expect(messagesFor(rec.sent, 'notifications/cancelled')).toEqual([])
  })

  it('aborts the signals of in-flight handlers and sends them no response', async () => {
    const { a, b, bSide } = await connectEndpoints()
    const started = deferred()
    const finish = deferred()
    let signal: AbortSignal | undefined
    b.setRequestHandler('slow', async (_params, context) => {
      signal = context.signal
      started.resolve()
      await finish.promise
      return {}
    })
    const outcome = a.request('slow').catch((e: unknown) => e)
    await started.promise
    let sentAfterClose = 0
    const transport: Transport = bSide
    const send = transport.send.bind(transport)
    transport.send = (payload, options) => {
      sentAfterClose++
      return send(payload, options)
    }
    await b.close()
    expect(signal?.aborted).toBe(true)
    expect((signal!.reason as Error).message).toMatch(/closed/)
    finish.resolve()
    await settle()
    expect(sentAfterClose).toBe(0)
    expect(await outcome).toMatchObject({ code: 'connection_closed' })
  })

  it('calls onclose once, whoever closes first', async () => {
    const { a, b } = await connectEndpoints()
    let aClosed = 0
    let bClosed = 0
    a.onclose = () => aClosed++
    b.onclose = () => bClosed++
    await a.close()
    await a.close()
    await settle()
    expect([aClosed, bClosed]).toEqual([1, 1])
  })

  it('rejects request() after close with not_connected, without sending', async () => {
    const rec = await connectToRecorder()
    await rec.endpoint.close()
    const error = await rec.endpoint.request('ping').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LocalError)
    expect((error as LocalError).code).toBe('not_connected')
    await expect(rec.endpoint.notify('notifications/x')).rejects.toMatchObject({ code: 'not_connected' })
  })

  it('rejects request() before connect with not_connected', async () => {
    await expect(new Endpoint().request('ping')).rejects.toMatchObject({ name: 'LocalError', code: 'not_connected' })
  })

  it('still marks itself closed when the transport fails to close', async () => {
    const rec = await connectToRecorder()
    const pending = rec.endpoint.request('a').catch((e: unknown) => e)
    let closed = 0
    rec.endpoint.onclose = () => closed++
    rec.endpointSide.close = async () => {
      throw new Error('socket stuck')
    }
    await expect(rec.endpoint.close()).rejects.toThrow('socket stuck')
    expect(closed).toBe(1)
    expect(await pending).toMatchObject({ code: 'connection_closed' })
    await expect(rec.endpoint.request('b')).rejects.toMatchObject({ code: 'not_connected' })
  })
})

describe('Endpoint: local refusals', () => {
  it('enforces maxPendingRequests with too_many_pending_requests', async () => {
    const rec = await connectToRecorder(new Endpoint({ maxPendingRequests: 2 }))
    const first = rec.endpoint.request('a')
    void rec.endpoint.request('b').catch(() => {})
    const third = await rec.endpoint.request('c').catch((e: unknown) => e)
    expect(third).toBeInstanceOf(LocalError)
    expect((third as LocalError).code).toBe('too_many_pending_requests')
    await settle()
    expect(messagesFor(rec.sent, 'c')).toEqual([])
    // once one settles there is room again
    await rec.send({ jsonrpc: '2.0', id: 0, result: {} })
    await first
    void rec.endpoint.request('d').catch(() => {})
    await settle()
    expect(messagesFor(rec.sent, 'd')).toHaveLength(1)
  })

  it('rejects locally without sending when assertCanRequest refuses', async () => {
    const refusal = new LocalError('capability_not_supported', 'the peer does not support sampling/createMessage')
    const rec = await connectToRecorder(
      new Endpoint({
        assertCanRequest: (method) => {
          if (method === 'sampling/createMessage') throw refusal
        },
      }),
    )
    await expect(rec.endpoint.request('sampling/createMessage', {})).rejects.toBe(refusal)
    void rec.endpoint.request('allowed').catch(() => {})
    await settle()
    expect(messagesFor(rec.sent, 'sampling/createMessage')).toEqual([])
    expect(messagesFor(rec.sent, 'allowed')).toHaveLength(1)
  })

  it('rejects with the transport error when sending fails, and forgets the request', async () => {
    const rec = await connectToRecorder(new Endpoint({ maxPendingRequests: 1 }))
    const failure = new Error('wire cut')
    const send = rec.endpointSide.send.bind(rec.endpointSide)
    rec.endpointSide.send = async () => {
      throw failure
    }
    await expect(rec.endpoint.request('a')).rejects.toBe(failure)
    rec.endpointSide.send = send
    // the failed request no longer counts against maxPendingRequests
    void rec.endpoint.request('b').catch(() => {})
    await settle()
    expect(messagesFor(rec.sent, 'b')).toHaveLength(1)
  })

  it('rejects with the transport error when send throws synchronously', async () => {
    const rec = await connectToRecorder(new Endpoint({ maxPendingRequests: 1 }))
    const failure = new Error('sync failure')
    const send = rec.endpointSide.send.bind(rec.endpointSide)
    rec.endpointSide.send = () => {
      throw failure
    }
    await expect(rec.endpoint.request('a')).rejects.toBe(failure)
    rec.endpointSide.send = send
    void rec.endpoint.request('b').catch(() => {})
    await settle()
    expect(messagesFor(rec.sent, 'b')).toHaveLength(1)
  })
})
