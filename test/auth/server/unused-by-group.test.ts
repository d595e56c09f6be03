// Issue 27, item 12: the registration caps' bookkeeping: counts per address group, and the oldest
// registration of a group holding the most, kept as registrations come and go.
import { describe, expect, it } from 'vitest'
import { UnusedByGroup } from '../../../src/auth/server/admin/unused-by-group.js'

const entry = (clientId: string, address: string) => ({ clientId, address, createdAt: 0 })

describe('UnusedByGroup', () => {
  it('finds the oldest registration of a group holding the most, as groups grow and shrink', () => {
    const unused = new UnusedByGroup()
    expect(unused.oldestOfLargest()).toBeUndefined()
    unused.add(entry('a1', 'A'))
    unused.add(entry('b1', 'B'))
    unused.add(entry('b2', 'B'))
    unused.add(entry('a2', 'A'))
    unused.add(entry('a3', 'A'))
    unused.add(entry('a3', 'A'))
    expect([unused.size, unused.most, unused.count('A'), unused.count('B'), unused.count('C')]).toEqual([5, 3, 3, 2, 0])
    expect(unused.oldestOfLargest()?.clientId).toBe('a1')
    expect(unused.remove('a1')).toBe(true)
    expect(unused.remove('a1')).toBe(false)
    // A and B hold two each now: B got there first
    expect(unused.most).toBe(2)
    expect(unused.oldestOfLargest()?.clientId).toBe('b1')
    for (const id of ['b1', 'b2', 'a2']) unused.remove(id)
    expect([unused.size, unused.most, unused.oldestOfLargest()?.clientId]).toEqual([1, 1, 'a3'])
    unused.remove('a3')
    expect([unused.size, unused.most, unused.oldestOfLargest()]).toEqual([0, 0, undefined])
  })

  it('takes any address as a group name, prototype names included', () => {
    const unused = new UnusedByGroup()
    for (const [i, address] of ['__proto__', 'constructor', 'toString', ''].entries()) unused.add(entry(`c${i}`, address))
    unused.add(entry('__proto__', '__proto__'))
    expect([unused.count('__proto__'), unused.count('constructor'), unused.count(''), unused.size]).toEqual([2, 1, 1, 5])
    expect(unused.oldestOfLargest()?.clientId).toBe('c0')
  })
})
