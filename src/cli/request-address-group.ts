import type { IncomingMessage } from 'node:http'
import { addressGroup } from '../net/address-group.js'

/**
 * The caller's address group for the access line, as the per-address limits count it: behind a
 * trusted proxy the last `X-Forwarded-For` entry (the one the proxy wrote, as Koa's `maxIpsCount: 1`
 * reads it), else the socket's peer.
 */
export function requestAddressGroup(trustProxy: boolean): (req: IncomingMessage) => string | undefined {
  return function addressOf(req) {
    if (trustProxy) {
      const forwarded = req.headers['x-forwarded-for']
      const list = Array.isArray(forwarded) ? forwarded.join(',') : forwarded
      if (list !== undefined && list !== '') {
        const last = list.slice(list.lastIndexOf(',') + 1).trim()
        if (last !== '') return addressGroup(last)
      }
    }
    const peer = req.socket?.remoteAddress
    return peer === undefined ? undefined : addressGroup(peer)
  }
}
