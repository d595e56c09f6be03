/**
 * Resumability over real HTTP: event ids that name their stream, `retry:`, priming events on
 * 2025-11-25 sessions, and GET with Last-Event-ID replaying exactly what one stream missed.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
 */
import { afterEach, describe, expect, it } from 'vitest'
import { WATCHED_RESOURCE_URI } from '../../../../src/demo/demo-resources.js'
import { callTool, closeAll, errorBody, get, getSse, initialize, post, postSse, readAnswer, seqOf, startHandler, streamOf } from './http-harness.js'

afterEach(closeAll)

const progressOf = (m: Record<string, any>) => (m.method === 'notifications/progress' ? (m.params.progress as number) : undefined)

describe('SSE event ids', () => {
  it('encode their stream as <stream>_<n> and are unique within a session', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    await session.call(1, 'resources/subscribe', { uri: WATCHED_RESOURCE_URI })
    const standalone = await getSse(url, session.options)
    const posts = [
      await postSse(url, callTool(2, 'slow_count', { steps: 3, delayMs: 1 }, { progressToken: 2 }), session.options),
      await postSse(url, callTool(3, 'touch_watched_resource'), session.options),
      await postSse(url, callTool(4, 'echo', { text: 'x' }), session.options),
    ]
    for (const stream of posts) await stream.toEnd()
    await standalone.waitForMessage((m) => m.method === 'notifications/resources/updated')
    const all = [...posts, standalone]
    const ids = all.flatMap((s) => s.events.map((e) => e.id))
    expect(ids.every((id) => typeof id === 'string')).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    // one stream per response, a different one for each
    const streams = all.map((s) => new Set(s.events.map((e) => streamOf(e.id))))
    for (const set of streams) expect(set.size).toBe(1)
    expect(new Set(streams.map((set) => [...set][0])).size).toBe(all.length)
    // numbered in order within a stream
    const seqs = posts[0]!.events.map((e) => seqOf(e.id))
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
  })

  it('differ between sessions even for the same sequence of calls', async () => {
    const { url } = await startHandler()
    const a = await initialize(url)
    const b = await initialize(url)
    const streamA = await postSse(url, callTool(1, 'echo', { text: 'a' }), a.options)
    const streamB = await postSse(url, callTool(1, 'echo', { text: 'b' }), b.options)
    await Promise.all([streamA.toEnd(), streamB.toEnd()])
    const idsA = streamA.events.map((e) => e.id)
    expect(streamB.events.map((e) => e.id).some((id) => idsA.includes(id))).toBe(false)
  })

  it('sends retry: with the configured retryMs on SSE answers and the GET stream', async () => {
    const { url } = await startHandler({ retryMs: 1234 })
    const session = await initialize(url, { protocolVersion: '2025-06-18' })
    const answer = await postSse(url, callTool(1, 'echo', { text: 'x' }), session.options)
    await answer.toEnd()
    expect(answer.retries).toEqual([1234])
    const standalone = await getSse(url, session.options)
    await standalone.waitForEvent(() => false, 100).catch(() => {})
    expect(standalone.retries).toEqual([1234])
  })
})

describe('priming events', () => {
  it('opens every stream after initialize on a 2025-11-25 session with an id and empty data', async () => {
    const { url } = await startHandler()
    const session = await initialize(url, { protocolVersion: '2025-11-25' })
    const answer = await postSse(url, callTool(1, 'echo', { text: 'x' }), session.options)
    await answer.toEnd()
    const [priming, response] = answer.events
    expect(priming!.data).toBe('')
    expect(seqOf(priming!.id)).toBe(0)
    expect(streamOf(priming!.id)).toBe(streamOf(response!.id))
    expect(JSON.parse(response!.data)).toMatchObject({ id: 1, result: {} })
    const standalone = await getSse(url, session.options)
    const first = await standalone.waitForEvent(() => true, 1_000)
    expect(first.data).toBe('')
    expect(seqOf(first.id)).toBe(0)
  })

  it('is sent at once, before the handler has anything to say', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const started = Date.now()
    const stream = await postSse(url, callTool(1, 'slow_count', { steps: 1, delayMs: 1_000 }), session.options)
    const priming = await stream.waitForEvent(() => true, 500)
    expect(priming.data).toBe('')
    expect(Date.now() - started).toBeLessThan(500)
    stream.abort()
  })

  it('does not prime the streams of a 2025-06-18 session', async () => {
    const { url } = await startHandler()
    const session = await initialize(url, { protocolVersion: '2025-06-18' })
    const answer = await postSse(url, callTool(1, 'echo', { text: 'x' }), session.options)
    await answer.toEnd()
    expect(answer.events).toHaveLength(1)
    expect(answer.events[0]!.data).not.toBe('')
  })

  it('lets a client that only saw the priming event resume the whole stream', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const stream = await postSse(url, callTool(9, 'slow_count', { steps: 3, delayMs: 60 }, { progressToken: 'prime' }), session.options)
    const priming = await stream.waitForEvent((e) => e.data === '')
    stream.abort()
    const resumed = await getSse(url, { ...session.options, lastEventId: priming.id! })
    const messages = await resumed.toEnd()
    expect(messages.map(progressOf)).toEqual([1, 2, 3, undefined])
    expect(messages.at(-1)).toMatchObject({ id: 9, result: { content: [{ text: 'counted to 3' }] } })
  })
})

describe('resuming with Last-Event-ID', () => {
  it('replays what a dropped POST stream missed, of that stream only, then its response', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    await session.call(1, 'resources/subscribe', { uri: WATCHED_RESOURCE_URI })
    const standalone = await getSse(url, session.options)
    const stream = await postSse(url, callTool(2, 'slow_count', { steps: 5, delayMs: 40 }, { progressToken: 'drop' }), session.options)
    const first = await stream.waitForEvent((_e, m) => m?.method === 'notifications/progress')
    stream.abort()
    // other streams of the session keep going meanwhile
    await readAnswer(await post(url, callTool(3, 'touch_watched_resource'), session.options))
    await standalone.waitForMessage((m) => m.method === 'notifications/resources/updated')

    const resumed = await getSse(url, { ...session.options, lastEventId: first.id! })
    const messages = await resumed.toEnd()
    expect(messages.map(progressOf)).toEqual([2, 3, 4, 5, undefined])
    expect(messages.every((m) => m.method === undefined || m.params.progressToken === 'drop')).toBe(true)
    expect(messages.at(-1)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'counted to 5' }] } })
    expect(resumed.events.every((e) => streamOf(e.id) === streamOf(first.id))).toBe(true)
    expect(resumed.events.map((e) => seqOf(e.id))).toEqual([2, 3, 4, 5, 6])
  })

  it('replays a stream that finished while the client was away, then ends', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const stream = await postSse(url, callTool(2, 'slow_count', { steps: 3, delayMs: 20 }, { progressToken: 't' }), session.options)
    const first = await stream.waitForEvent((_e, m) => m?.method === 'notifications/progress')
    stream.abort()
    await new Promise((resolve) => setTimeout(resolve, 150))
    const resumed = await getSse(url, { ...session.options, lastEventId: first.id! })
    expect((await resumed.toEnd()).map(progressOf)).toEqual([2, 3, undefined])
  })

  it('replays missed messages of the standalone stream only', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    await session.call(1, 'resources/subscribe', { uri: WATCHED_RESOURCE_URI })
    const standalone = await getSse(url, session.options)
    await session.call(2, 'tools/call', { name: 'touch_watched_resource', arguments: {} })
    const first = await standalone.waitForEvent((_e, m) => m?.method === 'notifications/resources/updated')
    standalone.abort()
    await new Promise((resolve) => setTimeout(resolve, 50))
    await session.call(3, 'tools/call', { name: 'touch_watched_resource', arguments: {} })
    await session.call(4, 'tools/call', { name: 'echo', arguments: { text: 'not for the GET stream' } })
    const resumed = await getSse(url, { ...session.options, lastEventId: first.id! })
    const update = await resumed.waitForMessage((m) => m.method === 'notifications/resources/updated')
    expect(update.params).toEqual({ uri: WATCHED_RESOURCE_URI })
    expect(resumed.events.every((e) => e.data === '' || streamOf(e.id) === streamOf(first.id))).toBe(true)
    expect(resumed.messages).toHaveLength(1)
  })

  it('refuses a Last-Event-ID from another session with 400 and never replays its events', async () => {
    const { url } = await startHandler()
    const a = await initialize(url)
    const b = await initialize(url)
    // the same calls in both sessions, so counters alone would give them the same ids
    const streamA = await postSse(url, callTool(1, 'echo', { text: 'secret of A' }), a.options)
    const streamB = await postSse(url, callTool(1, 'echo', { text: 'b' }), b.options)
    await Promise.all([streamA.toEnd(), streamB.toEnd()])
    for (const event of streamA.events) {
      const response = await get(url, { ...b.options, lastEventId: event.id! })
      expect(response.status).toBe(400)
      const text = await response.text()
      expect(text).not.toContain('secret of A')
    }
  })

  it('refuses a Last-Event-ID that names no stream with 400', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const answer = await postSse(url, callTool(1, 'echo', { text: 'x' }), session.options)
    await answer.toEnd()
    for (const id of ['nonsense', '42', `${streamOf(answer.events[0]!.id)}_999`]) {
      const response = await get(url, { ...session.options, lastEventId: id })
      expect(response.status).toBe(400)
      expect((await errorBody(response)).error.message).toMatch(/Last-Event-ID/)
    }
  })
})
