import { describe, expect, it } from 'vitest'
import type { JsonRpcMessage } from '../../src/jsonrpc/index.js'
import { InMemoryEventStore } from '../../src/sessions/event-store.js'

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: n, progressToken: 't' } })

describe('InMemoryEventStore', () => {
  it('replays what a stream sent after the given id, with the ids it gave', () => {
    const store = new InMemoryEventStore()
    store.openSession('s')
    const ids = [1, 2, 3].map((n) => store.append('s', 'a', note(n)))
    expect(ids).toEqual(['a_1', 'a_2', 'a_3'])
    expect(store.after('s', 'a_1')).toEqual({
      streamId: 'a',
      events: [
        { id: 'a_2', message: note(2) },
        { id: 'a_3', message: note(3) },
      ],
    })
    expect(store.after('s', 'a_3')).toEqual({ streamId: 'a', events: [] })
  })

  it('keeps the streams of one session apart once it has several', () => {
    const store = new InMemoryEventStore()
    store.append('s', 'a', note(1))
    store.append('s', 'b', note(2))
    store.append('s', 'a', note(3))
    expect(store.after('s', 'a_0')?.events.map((e) => e.id)).toEqual(['a_1', 'a_2'])
    expect(store.after('s', 'b_0')?.events).toEqual([{ id: 'b_1', message: note(2) }])
  })

  it('refuses an id it never gave: another session, a future sequence, or a foreign format', () => {
    const store = new InMemoryEventStore()
    store.append('s', 'a', note(1))
    expect(store.after('t', 'a_0')).toBeUndefined()
    expect(store.after('s', 'a_2')).toBeUndefined()
    expect(store.after('s', 'a-1')).toBeUndefined()
    expect(store.after('s', 'b_1')).toBeUndefined()
  })

  it('accepts a priming id of a known session before anything was stored', () => {
    const store = new InMemoryEventStore()
    store.openSession('s')
    expect(store.after('s', 'g_0')).toEqual({ streamId: 'g', events: [] })
    expect(store.after('unknown', 'g_0')).toBeUndefined()
  })

  it('keeps at most maxEventsPerStream events and maxStreamsPerSession streams, dropping the oldest', () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 2, maxStreamsPerSession: 2 })
    for (const n of [1, 2, 3]) store.append('s', 'a', note(n))
    expect(store.after('s', 'a_0')?.events.map((e) => e.id)).toEqual(['a_2', 'a_3'])
    store.append('s', 'b', note(4))
    store.append('s', 'c', note(5))
    expect(store.after('s', 'a_2')).toBeUndefined()
    expect(store.after('s', 'b_0')?.events.map((e) => e.id)).toEqual(['b_1'])
    expect(store.after('s', 'c_0')?.events.map((e) => e.id)).toEqual(['c_1'])
  })

  it('keeps a session its newest stream even with maxStreamsPerSession 0, the older ones forgotten', () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 2, maxStreamsPerSession: 0 })
    for (const stream of ['a', 'b', 'c']) store.append('s', stream, note(1))
    expect(store.after('s', 'a_1')).toBeUndefined()
    expect(store.after('s', 'b_1')).toBeUndefined()
    expect(store.after('s', 'c_0')?.events.map((e) => e.id)).toEqual(['c_1'])
    store.append('s', 'c', note(2))
    expect(store.after('s', 'c_0')?.events.map((e) => e.id)).toEqual(['c_1', 'c_2'])
  })

  it('forgets a dropped session', () => {
    const store = new InMemoryEventStore()
    store.append('s', 'a', note(1))
    store.dropSession('s')
    expect(store.after('s', 'a_0')).toBeUndefined()
  })
})
