import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Endpoint } from '../../src/protocol/endpoint.js'
import { LocalError } from '../../src/protocol/errors.js'
import { RequestTimer } from '../../src/protocol/timeouts.js'
import { connectToRecorder, messagesFor, settle } from '../helpers/endpoint-pair.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('RequestTimer', () => {
  it('fires once after timeoutMs with a reason naming the timeout', () => {
    const fired: string[] = []
    new RequestTimer({ timeoutMs: 100, maxTotalTimeoutMs: 1_000, resetOnProgress: false }, (reason) => fired.push(reason))
    vi.advanceTimersByTime(99)
    expect(fired).toEqual([])
    vi.advanceTimersByTime(1)
    expect(fired).toEqual(['no response within 100 ms'])
    vi.advanceTimersByTime(10_000)
    expect(fired).toHaveLength(1)
  })

  it('ignores touch when resetting on progress is off', () => {
    const fired: string[] = []
    const timer = new RequestTimer({ timeoutMs: 100, maxTotalTimeoutMs: 1_000, resetOnProgress: false }, (reason) => fired.push(reason))
    vi.advanceTimersByTime(80)
    timer.touch()
    vi.advanceTimersByTime(20)
    expect(fired).toHaveLength(1)
  })

  it('restarts on touch when resetting on progress is on', () => {
    const fired: string[] = []
    const timer = new RequestTimer({ timeoutMs: 100, maxTotalTimeoutMs: 1_000, resetOnProgress: true }, (reason) => fired.push(reason))
    vi.advanceTimersByTime(80)
    timer.touch()
    vi.advanceTimersByTime(80)
    expect(fired).toEqual([])
    vi.advanceTimersByTime(20)
    expect(fired).toEqual(['no response within 100 ms'])
  })

  it('never runs past maxTotalTimeoutMs, however often it is touched', () => {
    const fired: string[] = []
    const timer = new RequestTimer({ timeoutMs: 100, maxTotalTimeoutMs: 250, resetOnProgress: true }, (reason) => fired.push(reason))
    for (let t = 0; t < 240; t += 60) {
      vi.advanceTimersByTime(60)
      timer.touch()
    }
    expect(fired).toEqual([])
    vi.advanceTimersByTime(10)
    expect(fired).toEqual(['maximum total timeout of 250 ms exceeded'])
  })

  it('uses maxTotalTimeoutMs when it is shorter than timeoutMs', () => {
    const fired: string[] = []
    new RequestTimer({ timeoutMs: 1_000, maxTotalTimeoutMs: 50, resetOnProgress: false }, (reason) => fired.push(reason))
    vi.advanceTimersByTime(50)
    expect(fired).toEqual(['maximum total timeout of 50 ms exceeded'])
  })

  it('does not fire after clear', () => {
    const onTimeout = vi.fn()
    const timer = new RequestTimer({ timeoutMs: 100, maxTotalTimeoutMs: 1_000, resetOnProgress: true }, onTimeout)
    timer.clear()
    timer.touch()
    vi.advanceTimersByTime(5_000)
    expect(onTimeout).not.toHaveBeenCalled()
  })
})

describe('Endpoint: request timeouts', () => {
  it('rejects with request_timeout and sends notifications/cancelled', async () => {
    const rec = await connectToRecorder(new Endpoint({ requestTimeoutMs: 100 }))
    const outcome = rec.endpoint.request('slow').catch((e: unknown) => e)
    await settle()
    expect(messagesFor(rec.sent, 'slow')).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(100)
    const error = await outcome
    expect(error).toBeInstanceOf(LocalError)
    expect((error as LocalError).code).toBe('request_timeout')
    await settle()
    expect(messagesFor(rec.sent, 'notifications/cancelled')).toEqual([
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0, reason: expect.stringMatching(/timed out/) } },
    ])
  })

  it('does not time out when the response arrives in time', async () => {
    const rec = await connectToRecorder(new Endpoint({ requestTimeoutMs: 100 }))
    const outcome = rec.endpoint.request('quick')
    await settle()
    await vi.advanceTimersByTimeAsync(90)
    await rec.send({ jsonrpc: '2.0', id: 0, result: { ok: true } })
    await expect(outcome).resolves.toEqual({ ok: true })
    await vi.advanceTimersByTimeAsync(1_000)
    await settle()
    expect(messagesFor(rec.sent, 'notifications/cancelled')).toEqual([])
  })

  it('lets a per-call timeoutMs override the endpoint default', async () => {
    const rec = await connectToRecorder(new Endpoint({ requestTimeoutMs: 10_000 }))
    const outcome = rec.endpoint.request('slow', {}, { timeoutMs: 30 }).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(30)
    expect(await outcome).toMatchObject({ code: 'request_timeout' })
  })

  it('ignores a response that arrives after the timeout and reports it', async () => {
    const rec = await connectToRecorder(new Endpoint({ requestTimeoutMs: 50 }))
    const outcome = rec.endpoint.request('slow').catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(50)
    expect(await outcome).toMatchObject({ code: 'request_timeout' })
    await rec.send({ jsonrpc: '2.0', id: 0, result: { late: true } })
    await settle()
    expect(rec.errors.map((e) => e.message)).toContain('received a response for unknown request id 0')
  })

  it('keeps a request alive while progress arrives when resetTimeoutOnProgress is on', async () => {
    const rec = await connectToRecorder(new Endpoint({ requestTimeoutMs: 100, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 10_000 }))
    const updates: number[] = []
    const outcome = rec.endpoint.request('long', {}, { onprogress: (p) => updates.push(p.progress) })
    await settle()
    for (let step = 1; step <= 5; step++) {
      await vi.advanceTimersByTimeAsync(80)
      await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 0, progress: step } })
      await settle()
    }
    // 400 ms have passed, far beyond the 100 ms timeout
    await rec.send({ jsonrpc: '2.0', id: 0, result: { done: true } })
    await expect(outcome).resolves.toEqual({ done: true })
    expect(updates).toEqual([1, 2, 3, 4, 5])
  })

  it('times out despite progress when resetTimeoutOnProgress is off', async () => {
    const rec = await connectToRecorder(new Endpoint({ requestTimeoutMs: 100, resetTimeoutOnProgress: false }))
    const outcome = rec.endpoint.request('long', {}, { onprogress: () => {} }).catch((e: unknown) => e)
    await settle()
    await vi.advanceTimersByTimeAsync(80)
    await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 0, progress: 1 } })
    await settle()
    await vi.advanceTimersByTimeAsync(20)
    expect(await outcome).toMatchObject({ code: 'request_timeout' })
  })

  it('lets a per-call resetTimeoutOnProgress opt in', async () => {
    const rec = await connectToRecorder(new Endpoint({ requestTimeoutMs: 100, resetTimeoutOnProgress: false }))
    let settled = false
    const outcome = rec.endpoint.request('long', {}, { onprogress: () => {}, resetTimeoutOnProgress: true }).finally(() => (settled = true))
    await settle()
    await vi.advanceTimersByTimeAsync(80)
    await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 0, progress: 1 } })
    await settle()
    await vi.advanceTimersByTimeAsync(80)
    expect(settled).toBe(false)
    await rec.send({ jsonrpc: '2.0', id: 0, result: {} })
    await expect(outcome).resolves.toEqual({})
  })

  it('enforces maxTotalTimeoutMs as a hard cap even while progress keeps arriving', async () => {
    const rec = await connectToRecorder(new Endpoint({ requestTimeoutMs: 100, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 300 }))
    const outcome = rec.endpoint.request('endless', {}, { onprogress: () => {} }).catch((e: unknown) => e)
    await settle()
    let progress = 0
    let elapsed = 0
    while (elapsed < 280) {
      await vi.advanceTimersByTimeAsync(70)
      elapsed += 70
      await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 0, progress: ++progress } })
      await settle()
    }
    await vi.advanceTimersByTimeAsync(300 - elapsed)
    const error = await Promise.race([outcome, settle().then(() => 'still pending at the hard cap')])
    expect(error).toBeInstanceOf(LocalError)
    expect((error as LocalError).code).toBe('request_timeout')
    expect((error as LocalError).message).toMatch(/maximum total timeout of 300 ms/)
    await settle()
    expect(messagesFor(rec.sent, 'notifications/cancelled')).toHaveLength(1)
  })

  it('never sends notifications/cancelled when initialize times out', async () => {
    const rec = await connectToRecorder(new Endpoint({ requestTimeoutMs: 50 }))
    const outcome = rec.endpoint.request('initialize', { protocolVersion: '2025-11-25' }).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(50)
    expect(await outcome).toMatchObject({ code: 'request_timeout' })
    await settle()
    expect(messagesFor(rec.sent, 'notifications/cancelled')).toEqual([])
  })
})
