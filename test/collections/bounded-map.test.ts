/**
 * BoundedMap (issue 29, item 4): one bounded map for the caches and counters that forgot their
 * oldest entry by hand, with each site's eviction order kept.
 */
import { describe, expect, it } from 'vitest'
import { BoundedMap } from '../../src/collections/bounded-map.js'

describe('BoundedMap', () => {
  it('forgets the first inserted key once a set takes it past max', () => {
    const map = new BoundedMap<string, number>(2)
    map.set('a', 1).set('b', 2)
    expect([...map.keys()]).toEqual(['a', 'b'])
    map.set('c', 3)
    expect([...map.entries()]).toEqual([
      ['b', 2],
      ['c', 3],
    ])
    expect(map.size).toBe(2)
  })

  it('keeps a key at its first place when it is set again (FIFO by insertion)', () => {
    const map = new BoundedMap<string, number>(2)
    map.set('a', 1).set('b', 2).set('a', 10).set('c', 3)
    expect([...map.entries()]).toEqual([
      ['b', 2],
      ['c', 3],
    ])
  })

  it('with refreshOnSet, moves a key set again to the newest place', () => {
    const map = new BoundedMap<string, number>(2, { refreshOnSet: true })
    map.set('a', 1).set('b', 2).set('a', 10).set('c', 3)
    expect([...map.entries()]).toEqual([
      ['a', 10],
      ['c', 3],
    ])
  })

  it('with evictBeforeSet, makes room when full even for a key it holds', () => {
    const map = new BoundedMap<string, number>(2, { evictBeforeSet: true })
    map.set('a', 1).set('b', 2).set('c', 3)
    expect([...map.keys()]).toEqual(['b', 'c'])
    // full: setting 'c' again first forgets 'b', as `if (size >= max) delete(oldest); set()` did
    map.set('c', 30)
    expect([...map.entries()]).toEqual([['c', 30]])
  })

  it('evicts an undefined key like any other', () => {
    const map = new BoundedMap<string | undefined, number>(1)
    map.set(undefined, 1).set('a', 2)
    expect([...map.keys()]).toEqual(['a'])
  })

  it('holds nothing past max 0 (a set is forgotten at once) and is still a Map', () => {
    const map = new BoundedMap<string, number>(0)
    map.set('a', 1)
    expect(map.size).toBe(0)
    expect(map).toBeInstanceOf(Map)
  })

  it('deleteOldest forgets the first inserted key now, and says false once empty', () => {
    const map = new BoundedMap<string, number>(3)
    map.set('a', 1).set('b', 2).set('a', 10)
    expect(map.deleteOldest()).toBe(true)
    expect([...map.entries()]).toEqual([['b', 2]])
    expect(map.deleteOldest()).toBe(true)
    expect(map.size).toBe(0)
    expect(map.deleteOldest()).toBe(false)
  })

  it('deleteOldest with refreshOnSet forgets the key set longest ago', () => {
    const map = new BoundedMap<string, number>(3, { refreshOnSet: true })
    map.set('a', 1).set('b', 2).set('a', 10)
    map.deleteOldest()
    expect([...map.entries()]).toEqual([['a', 10]])
  })

  it('stays bounded under many distinct keys and keeps the newest max', () => {
    const map = new BoundedMap<number, number>(100)
    for (let i = 0; i < 10_000; i++) map.set(i, i)
    expect(map.size).toBe(100)
    expect(map.keys().next().value).toBe(9_900)
    expect(map.get(9_999)).toBe(9_999)
    expect(map.has(9_899)).toBe(false)
  })
})
