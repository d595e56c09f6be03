import type { IncomingMessage } from 'node:http'
import { addressGroup } from '../../net/address-group.js'
import type { AuthInfo } from '../../protocol/context.js'

/**
 * Who a session belongs to: the principal of the verified token (issuer, subject and client), or,
 * on a server without an auth layer, the client's address (IPv6 by /64). A session answers only
 * its owner; anyone else is told it does not exist.
 */
export function sessionOwner(req: IncomingMessage & { auth?: AuthInfo }): string {
  const auth = req.auth
  if (auth !== undefined) return JSON.stringify(['token', auth.claims?.['iss'] ?? '', auth.subject ?? '', auth.clientId])
  return JSON.stringify(['address', addressGroup(req.socket?.remoteAddress ?? '')])
}
