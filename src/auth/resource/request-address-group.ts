import type { IncomingMessage } from 'node:http'
import { addressGroup } from '../../net/address-group.js'

/**
 * The address group (an IPv4 address, an IPv6 /64) a request came from: the socket's peer, or
 * behind a trusted proxy the last `X-Forwarded-For` entry (the address the proxy itself saw, as
 * Koa reads it with `maxIpsCount: 1`). Read only for refusals and audit events, never per call.
 */
export function requestAddressGroup(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for']
    const list = Array.isArray(forwarded) ? forwarded.join(',') : forwarded
    const last = list?.split(',').at(-1)?.trim()
    if (last !== undefined && last !== '') return addressGroup(last)
  }
  return addressGroup(req.socket?.remoteAddress ?? 'unknown')
}
