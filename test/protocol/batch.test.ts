import { describe, expect, it } from 'vitest'
import { ErrorCode } from '../../src/jsonrpc/index.js'
import { Endpoint } from '../../src/protocol/endpoint.js'
import { connectToRecorder, deferred, settle } from '../helpers/endpoint-pair.js'

const invalidRequest = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message: expect.any(String) } })

async function batchingRecorder(acceptsBatch = true) {
  const rec = await connectToRecorder(new Endpoint({ acceptsBatch: () => acceptsBatch }))
  const calls: string[] = []
  rec.endpoint.setRequestHandler('echo', (params) => {
    calls.push(String(params.n))
    return { n: params.n }
  })
  rec.endpoint.setNotificationHandler('notifications/note', (params) => {
    calls.push(`note:${String(params.n)}`)
  })
  return { ...rec, calls }
}

describe('Endpoint: batches', () => {
  it('refuses a batch with -32600 and id null when acceptsBatch is absent', async () => {
    const rec = await connectToRecorder()
    let called = false
    rec.endpoint.setRequestHandler('echo', () => {
      called = true
      return {}
    })
    await rec.send([{ jsonrpc: '2.0', id: 1, method: 'echo' }])
    await settle()
    expect(called).toBe(false)
    expect(rec.sent).toEqual([invalidRequest(null)])
  })

  it('refuses a batch with -32600 and id null when acceptsBatch returns false', async () => {
    const rec = await batchingRecorder(false)
    await rec.send([
      { jsonrpc: '2.0', id: 1, method: 'echo', params: { n: 1 } },
      { jsonrpc: '2.0', method: 'notifications/note', params: { n: 2 } },
    ])
    await settle()
    expect(rec.calls).toEqual([])
    expect(rec.sent).toEqual([invalidRequest(null)])
  })

  it('answers an accepted batch with one array holding one response per request, none for notifications', async () => {
    const rec = await batchingRecorder()
    await rec.send([
      { jsonrpc: '2.0', id: 1, method: 'echo', params: { n: 1 } },
      { jsonrpc: '2.0', method: 'notifications/note', params: { n: 2 } },
      { jsonrpc: '2.0', id: 'b', method: 'echo', params: { n: 3 } },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
    ])
    await settle()
    expect(rec.calls).toEqual(['1', 'note:2', '3'])
    expect(rec.sent).toHaveLength(1)
    const batch = rec.sent[0] as unknown[]
    expect(Array.isArray(batch)).toBe(true)
    expect(batch).toHaveLength(3)
    expect(batch).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: { n: 1 } },
        { jsonrpc: '2.0', id: 'b', result: { n: 3 } },
        { jsonrpc: '2.0', id: 3, result: {} },
      ]),
    )
  })

  it('waits for slow handlers and still sends the batch as one array', async () => {
    const rec = await batchingRecorder()
    const gate = deferred()
    rec.endpoint.setRequestHandler('slow', async () => {
      await gate.promise
      return { slow: true }
    })
    await rec.send([
      { jsonrpc: '2.0', id: 1, method: 'slow' },
      { jsonrpc: '2.0', id: 2, method: 'echo', params: { n: 2 } },
    ])
    await settle()
    expect(rec.sent).toEqual([])
    gate.resolve()
    await settle()
    expect(rec.sent).toHaveLength(1)
    expect(rec.sent[0]).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: { slow: true } },
        { jsonrpc: '2.0', id: 2, result: { n: 2 } },
      ]),
    )
    expect(rec.sent[0]).toHaveLength(2)
  })

  it('gives invalid elements their own error entries in the array', async () => {
    const rec = await batchingRecorder()
    await rec.send([
      1,
      { jsonrpc: '2.0', id: 7, method: 'echo', params: { n: 7 } },
      { jsonrpc: '1.0', id: 8, method: 'echo' },
      'text',
      { jsonrpc: '2.0', id: 9, method: 'missing' },
    ])
    await settle()
    expect(rec.sent).toHaveLength(1)
    const batch = rec.sent[0] as unknown[]
    expect(batch).toHaveLength(5)
    expect(batch).toEqual(
      expect.arrayContaining([
        invalidRequest(null),
        invalidRequest(null),
        invalidRequest(8),
        { jsonrpc: '2.0', id: 7, result: { n: 7 } },
        { jsonrpc: '2.0', id: 9, error: { code: ErrorCode.MethodNotFound, message: expect.any(String) } },
      ]),
    )
    expect(batch.filter((r) => (r as { id: unknown }).id === null)).toHaveLength(2)
  })

  it('refuses a batch that contains initialize, without running any of it', async () => {
    const rec = await batchingRecorder()
    let initialized = false
    rec.endpoint.setRequestHandler('initialize', () => {
      initialized = true
      return {}
    })
    await rec.send([
      { jsonrpc: '2.0', id: 1, method: 'echo', params: { n: 1 } },
      { jsonrpc: '2.0', id: 2, method: 'initialize', params: {} },
    ])
    await settle()
    expect(initialized).toBe(false)
    expect(rec.calls).toEqual([])
    expect(rec.sent).toEqual([invalidRequest(null)])
  })

  it('refuses an empty batch with a single -32600, not an array', async () => {
    const rec = await batchingRecorder()
    await rec.send([])
    await settle()
    expect(rec.sent).toEqual([invalidRequest(null)])
  })

  it('sends no response to a batch of only notifications', async () => {
    const rec = await batchingRecorder()
    await rec.send([
      { jsonrpc: '2.0', method: 'notifications/note', params: { n: 1 } },
      { jsonrpc: '2.0', method: 'notifications/note', params: { n: 2 } },
    ])
    await settle()
    expect(rec.calls).toEqual(['note:1', 'note:2'])
    expect(rec.sent).toEqual([])
  })

  it('leaves a cancelled request out of the batch answer', async () => {
    const rec = await batchingRecorder()
    rec.endpoint.setRequestHandler('slow', (_params, context) => new Promise((resolve) => context.signal.addEventListener('abort', () => resolve({}))))
    await rec.send([
      { jsonrpc: '2.0', id: 1, method: 'slow' },
      { jsonrpc: '2.0', id: 2, method: 'echo', params: { n: 2 } },
    ])
    await settle()
    expect(rec.sent).toEqual([])
    await rec.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })
    await settle()
    expect(rec.sent).toEqual([[{ jsonrpc: '2.0', id: 2, result: { n: 2 } }]])
  })

  it('settles pending requests from responses delivered in a batch', async () => {
    const rec = await batchingRecorder()
    const first = rec.endpoint.request('x')
    const second = rec.endpoint.request('y')
    await settle()
    const before = rec.sent.length
    await rec.send([
      { jsonrpc: '2.0', id: 1, result: { y: true } },
      { jsonrpc: '2.0', id: 0, result: { x: true } },
    ])
    await expect(first).resolves.toEqual({ x: true })
    await expect(second).resolves.toEqual({ y: true })
    await settle()
    expect(rec.sent).toHaveLength(before)
  })
})
