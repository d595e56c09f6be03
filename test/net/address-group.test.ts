import { describe, expect, it } from 'vitest'
import { addressGroup } from '../../src/net/address-group.js'

describe('addressGroup', () => {
  it('keeps an IPv4 address as it is, also when IPv4-mapped', () => {
    expect(addressGroup('203.0.113.7')).toBe('203.0.113.7')
    expect(addressGroup('::ffff:203.0.113.7')).toBe('203.0.113.7')
  })

  it('groups IPv6 addresses by their /64 whatever their spelling', () => {
    const group = addressGroup('2001:db8:1:2::1')
    expect(group).toBe('2001:db8:1:2::/64')
    expect(addressGroup('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(group)
    expect(addressGroup('[2001:db8:1:2:aaaa::5]')).toBe(group)
    expect(addressGroup('2001:db8:1:2::1%eth0')).toBe(group)
    expect(addressGroup('2001:db8:1:3::1')).not.toBe(group)
    expect(addressGroup('::1')).toBe('0:0:0:0::/64')
  })
})
