import type { RevocationCheck } from '../../resource/revocation-check.js'
import type { BlockedClients } from './blocked-clients.js'
import type { GrantRevocations } from './grant-revocations.js'

/**
 * The {@link RevocationCheck} of a resource server in the authorization server's process: a JWT
 * access token of ours is revoked when its grant is (its `gid` claim is in the revoked-grant set)
 * or its client is blocked (a client_credentials token has no grant to revoke), O(1) in-memory
 * checks with no request to the server. With several nodes, the bus feeds every node's sets, so a
 * grant revoked or a client blocked through one node is refused by all. Built once per server: the
 * bearer check calls it on every request, straight into the sets.
 */
export function grantRevocationCheck(revocations: GrantRevocations, blocked?: Pick<BlockedClients, 'isBlocked'>): RevocationCheck {
  if (blocked === undefined) {
    return function grantRevoked(_token, info) {
      return revocations.isRevoked(info.claims?.['gid'])
    }
  }
  return function grantRevokedOrClientBlocked(_token, info) {
    return revocations.isRevoked(info.claims?.['gid']) || blocked.isBlocked(info.clientId)
  }
}
