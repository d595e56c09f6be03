import { describe, expect, it } from 'vitest'
import { byteSize } from '../../src/cli/byte-size.js'

describe('byteSize', () => {
  it('says bytes below 1 kB, then kB and MB with one decimal', () => {
    expect(byteSize(0)).toBe('0 B')
    expect(byteSize(999)).toBe('999 B')
    expect(byteSize(1067)).toBe('1.1 kB')
    expect(byteSize(340_500)).toBe('340.5 kB')
    expect(byteSize(34_000_000)).toBe('34.0 MB')
  })
})
