import { describe, expect, it, vi } from 'vitest'
import type { JsonRpcResponse } from '../../src/jsonrpc/index.js'
import { PendingRequests } from '../../src/protocol/correlation.js'
import { LocalError } from '../../src/protocol/errors.js'
import { connectEndpoints, connectToRecorder, messagesFor, settle } from '../helpers/endpoint-pair.js'

describe('PendingRequests', () => {
  it('hands out ids that strictly increase and are never reused, even after settling', () => {
    const pending = new PendingRequests()
    const ids: number[] = []
    for (let i = 0; i < 50; i++) {
      const id = pending.nextId()
      ids.push(id)
      pending.add(id, { method: 'm', resolve: () => {}, reject: () => {} })
      pending.take(id)
    }
    expect(new Set(ids).size).toBe(50)
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true)
    expect(pending.size).toBe(0)
  })

  it('take removes the entry, clears its timer and detaches its abort listener', () => {
    const pending = new PendingRequests()
    const clear = vi.fn()
    const detach = vi.fn()
    const entry = { method: 'm', resolve: () => {}, reject: () => {}, timer: { clear } as never, detach }
    pending.add(1, entry)
    expect(pending.get(1)).toBe(entry)
    expect(pending.take(1)).toBe(entry)
    expect(clear).toHaveBeenCalledOnce()
    expect(detach).toHaveBeenCalledOnce()
    expect(pending.get(1)).toBeUndefined()
    expect(pending.take(1)).toBeUndefined()
  })

  it('rejectAll rejects every waiting entry with a fresh error and empties the map', () => {
    const pending = new PendingRequests()
    const rejected: Array<{ id: number; error: Error }> = []
    for (const id of [1, 2, 3]) pending.add(id, { method: 'm', resolve: () => {}, reject: (error) => rejected.push({ id, error }) })
    pending.rejectAll(() => new LocalError('connection_closed', 'closed'))
    expect(rejected.map((r) => r.id)).toEqual([1, 2, 3])
    expect(new Set(rejected.map((r) => r.error)).size).toBe(3)
    expect(pending.size).toBe(0)
  })

  it('hands the response to the entry resolve function untouched', () => {
    const pending = new PendingRequests()
    let got: JsonRpcResponse | undefined
    pending.add(5, { method: 'm', resolve: (r) => (got = r), reject: () => {} })
    const response: JsonRpcResponse = { jsonrpc: '2.0', id: 5, result: { a: 1 } }
    pending.take(5)?.resolve(response)
    expect(got).toBe(response)
  })
})

describe('Endpoint: request ids', () => {
  it('never reuses an id: ids strictly increase across many requests, even after they settle', async () => {
    const rec = await connectToRecorder()
    const calls: Array<Promise<unknown>> = []
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 20; i++) calls.push(rec.endpoint.request('work', { round, i }))
      await settle()
      // answer everything sent so far, so those requests settle before the next round
      for (const request of messagesFor(rec.sent, 'work').filter((m) => (m.params as { round: number }).round === round)) {
        await rec.send({ jsonrpc: '2.0', id: request.id, result: { echo: request.id } })
      }
      await settle()
    }
    await Promise.all(calls)
    const ids = messagesFor(rec.sent, 'work').map((m) => m.id as number)
    expect(ids).toHaveLength(60)
    expect(new Set(ids).size).toBe(60)
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]!)
    for (const id of ids) expect(Number.isInteger(id)).toBe(true)
  })

  it('matches responses that arrive out of order to their requests', async () => {
    const rec = await connectToRecorder()
    const first = rec.endpoint.request('first')
    const second = rec.endpoint.request('second')
    const third = rec.endpoint.request('third')
    await settle()
    const idOf = (method: string) => messagesFor(rec.sent, method)[0]!.id
    await rec.send({ jsonrpc: '2.0', id: idOf('third'), result: { name: 'third' } })
    await rec.send({ jsonrpc: '2.0', id: idOf('first'), error: { code: -32602, message: 'first failed' } })
    await rec.send({ jsonrpc: '2.0', id: idOf('second'), result: { name: 'second' } })
    await expect(third).resolves.toEqual({ name: 'third' })
    await expect(second).resolves.toEqual({ name: 'second' })
    await expect(first).rejects.toMatchObject({ name: 'JsonRpcError', code: -32602, message: 'first failed' })
  })

  it('matches out-of-order answers between two endpoints', async () => {
    const { a, b } = await connectEndpoints()
    const releases: Array<() => void> = []
    b.setRequestHandler('wait', (params) => new Promise((resolve) => releases.push(() => resolve({ n: params.n }))))
    const calls = [0, 1, 2, 3].map((n) => a.request('wait', { n }))
    await settle()
    expect(releases).toHaveLength(4)
    for (const release of [...releases].reverse()) release()
    await expect(Promise.all(calls)).resolves.toEqual([{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }])
  })
})
