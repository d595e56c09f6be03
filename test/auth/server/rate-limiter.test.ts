/**
 * The in-process RateLimiter is bounded by keys: past `maxKeys` it forgets the window set longest
 * ago, and a key whose window starts again counts as the newest (issue 29 item 4 keeps that order).
 */
import { describe, expect, it } from 'vitest'
import { RateLimiter } from '../../../src/auth/server/middleware/rate-limiter.js'

describe('RateLimiter key bound', () => {
  it('forgets the window started longest ago, not the key seen first', () => {
    let now = 0
    const limiter = new RateLimiter({ limit: 1, windowSeconds: 1, maxKeys: 2, now: () => now })
    expect(limiter.hit('a').allowed).toBe(true)
    expect(limiter.hit('b').allowed).toBe(true)
    now = 1_000
    // a's window starts again: a is now the newest, b the oldest
    expect(limiter.hit('a').allowed).toBe(true)
    expect(limiter.hit('c').allowed).toBe(true)
    // b was forgotten (its next hit opens a fresh window); a was kept (its second hit is over the limit)
    expect(limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 1 })
  })

  it('forgets a key pushed out by others, which then starts afresh', () => {
    const limiter = new RateLimiter({ limit: 1, windowSeconds: 60, maxKeys: 2, now: () => 0 })
    expect(limiter.hit('a').allowed).toBe(true)
    expect(limiter.hit('a').allowed).toBe(false)
    limiter.hit('b')
    limiter.hit('c')
    expect(limiter.hit('a').allowed).toBe(true)
  })
})
