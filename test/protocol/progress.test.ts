import { describe, expect, it } from 'vitest'
import { LocalError } from '../../src/protocol/errors.js'
import { createProgressReporter, readProgressToken } from '../../src/protocol/progress.js'
import type { ProgressParams } from '../../src/schema/features.js'
import { connectEndpoints, connectToRecorder, deferred, messagesFor, settle } from '../helpers/endpoint-pair.js'

describe('createProgressReporter', () => {
  it('is a no-op without a progress token, whatever the values', async () => {
    const sent: ProgressParams[] = []
    const report = createProgressReporter(undefined, async (p) => {
      sent.push(p)
    })
    await expect(report(5)).resolves.toBeUndefined()
    await expect(report(1)).resolves.toBeUndefined()
    expect(sent).toEqual([])
  })

  it('sends progress with the token, total and message when given', async () => {
    const sent: ProgressParams[] = []
    const report = createProgressReporter('tok', async (p) => {
      sent.push(p)
    })
    await report(1)
    await report(2, 10, 'halfway there')
    expect(sent).toEqual([
      { progressToken: 'tok', progress: 1 },
      { progressToken: 'tok', progress: 2, total: 10, message: 'halfway there' },
    ])
  })

  it('throws RangeError when progress does not increase', async () => {
    const sent: ProgressParams[] = []
    const report = createProgressReporter(7, async (p) => {
      sent.push(p)
    })
    await report(3)
    await expect(report(3)).rejects.toBeInstanceOf(RangeError)
    await expect(report(2)).rejects.toThrow(/progress must increase/)
    await expect(report(Number.NaN)).rejects.toBeInstanceOf(RangeError)
    await expect(report(Number.POSITIVE_INFINITY)).rejects.toBeInstanceOf(RangeError)
    expect(sent).toEqual([{ progressToken: 7, progress: 3 }])
    await report(4)
    expect(sent.map((p) => p.progress)).toEqual([3, 4])
  })

  it('accepts zero and negative values as a first step', async () => {
    const sent: number[] = []
    const report = createProgressReporter('t', async (p) => {
      sent.push(p.progress)
    })
    await report(-1)
    await report(0)
    expect(sent).toEqual([-1, 0])
  })
})

describe('readProgressToken', () => {
  it('reads string and integer tokens', () => {
    expect(readProgressToken({ progressToken: 'a' })).toBe('a')
    expect(readProgressToken({ progressToken: 3 })).toBe(3)
  })

  it('ignores missing or invalid tokens', () => {
    expect(readProgressToken(undefined)).toBeUndefined()
    expect(readProgressToken({})).toBeUndefined()
    expect(readProgressToken({ progressToken: 1.5 })).toBeUndefined()
    expect(readProgressToken({ progressToken: null })).toBeUndefined()
    expect(readProgressToken({ progressToken: { a: 1 } })).toBeUndefined()
  })
})

describe('Endpoint: outgoing progress', () => {
  it('carries _meta.progressToken when onprogress is given, keeping other _meta members', async () => {
    const rec = await connectToRecorder()
    void rec.endpoint.request('tools/call', { name: 'x', _meta: { traceId: 't-1' } }, { onprogress: () => {} }).catch(() => {})
    void rec.endpoint.request('tools/call', { name: 'y' }).catch(() => {})
    await settle()
    const [withProgress, without] = messagesFor(rec.sent, 'tools/call')
    expect(withProgress).toEqual({
      jsonrpc: '2.0',
      id: 0,
      method: 'tools/call',
      params: { name: 'x', _meta: { traceId: 't-1', progressToken: 0 } },
    })
    expect(without?.params).toEqual({ name: 'y' })
  })

  it('delivers progress updates to onprogress until the response', async () => {
    const rec = await connectToRecorder()
    const updates: ProgressParams[] = []
    const outcome = rec.endpoint.request('long', undefined, { onprogress: (p) => updates.push(p) })
    await settle()
    const token = (messagesFor(rec.sent, 'long')[0]!.params as { _meta: { progressToken: number } })._meta.progressToken
    await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 3 } })
    await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 2, total: 3, message: 'two' } })
    await rec.send({ jsonrpc: '2.0', id: 0, result: { done: true } })
    await expect(outcome).resolves.toEqual({ done: true })
    // progress after the response is ignored
    await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 3, total: 3 } })
    await settle()
    expect(updates).toEqual([
      { progressToken: token, progress: 1, total: 3 },
      { progressToken: token, progress: 2, total: 3, message: 'two' },
    ])
  })

  it('ignores and reports progress that does not increase', async () => {
    const rec = await connectToRecorder()
    const updates: number[] = []
    void rec.endpoint.request('long', {}, { onprogress: (p) => updates.push(p.progress) }).catch(() => {})
    await settle()
    for (const progress of [1, 5, 5, 3, 6]) {
      await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 0, progress } })
    }
    await settle()
    expect(updates).toEqual([1, 5, 6])
    const reported = rec.errors.filter((e) => e instanceof LocalError && e.code === 'invalid_progress')
    expect(reported).toHaveLength(2)
  })

  it('ignores progress for unknown tokens and for requests that did not ask for it', async () => {
    const rec = await connectToRecorder()
    const updates: number[] = []
    void rec.endpoint.request('with', {}, { onprogress: (p) => updates.push(p.progress) }).catch(() => {})
    void rec.endpoint.request('without').catch(() => {})
    await settle()
    await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })
    await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 42, progress: 1 } })
    await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: '0', progress: 1 } })
    await settle()
    expect(updates).toEqual([])
    expect(rec.errors).toEqual([])
  })
})

describe('Endpoint: inbound progress (context.sendProgress)', () => {
  it('sends notifications/progress to the caller that asked for it', async () => {
    const { a, b } = await connectEndpoints()
    b.setRequestHandler('long', async (_params, context) => {
      expect(context.progressToken).toBe(0)
      await context.sendProgress(1, 2, 'half')
      await context.sendProgress(2, 2)
      return { done: true }
    })
    const updates: ProgressParams[] = []
    await expect(a.request('long', {}, { onprogress: (p) => updates.push(p) })).resolves.toEqual({ done: true })
    expect(updates).toEqual([
      { progressToken: 0, progress: 1, total: 2, message: 'half' },
      { progressToken: 0, progress: 2, total: 2 },
    ])
  })

  it('is a no-op when the request carries no progress token', async () => {
    const rec = await connectToRecorder()
    const done = deferred<unknown>()
    rec.endpoint.setRequestHandler('long', async (_params, context) => {
      done.resolve(context.progressToken)
      await context.sendProgress(1)
      await context.sendProgress(1)
      return {}
    })
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'long' })
    expect(await done.promise).toBeUndefined()
    await settle()
    expect(messagesFor(rec.sent, 'notifications/progress')).toEqual([])
    expect(rec.sent).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }])
  })

  it('uses the token the caller chose and refuses non-increasing progress with RangeError', async () => {
    const rec = await connectToRecorder()
    const refusal = deferred<unknown>()
    rec.endpoint.setRequestHandler('long', async (_params, context) => {
      await context.sendProgress(2)
      refusal.resolve(await context.sendProgress(1).catch((e: unknown) => e))
      return {}
    })
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'long', params: { _meta: { progressToken: 'caller-token' } } })
    expect(await refusal.promise).toBeInstanceOf(RangeError)
    await settle()
    expect(messagesFor(rec.sent, 'notifications/progress')).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'caller-token', progress: 2 } }])
  })
})
