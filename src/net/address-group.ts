import { isIPv4, isIPv6 } from 'node:net'

/**
 * The group a client address is counted in for per-address limits: an IPv4 address as itself
 * (IPv4-mapped IPv6 too), an IPv6 address by its /64 — one subscriber usually holds a whole /64,
 * so counting single IPv6 addresses would let one client rotate through 2^64 of them.
 */
export function addressGroup(address: string): string {
  if (isIPv4(address)) return address
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address
  const zoneless = bare.split('%')[0]!
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(zoneless)
  if (mapped !== null) return mapped[1]!
  if (isIPv4(zoneless)) return zoneless
  if (!isIPv6(zoneless)) return zoneless
  return `${expandIPv6(zoneless).slice(0, 4).join(':')}::/64`
}

/** The eight 16-bit groups of an IPv6 address, without leading zeros. */
function expandIPv6(address: string): string[] {
  let text = address
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted !== null) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number]
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined]
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0')
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16).toString(16))
}
