import type { RevocationCheck } from '../../resource/revocation-check.js'
import type { GrantRevocations } from './grant-revocations.js'

/**
 * The {@link RevocationCheck} of a resource server in the authorization server's process: a JWT
 * access token of ours is revoked when its grant is (its `gid` claim is in the revoked-grant set),
 * an O(1) in-memory check with no request to the server. With several nodes, the bus feeds every
 * node's set, so a grant revoked through one node is refused by all. Built once per server: the
 * bearer check calls it on every request, straight into the set.
 */
export function grantRevocationCheck(revocations: GrantRevocations): RevocationCheck {
  return function grantRevoked(_token, info) {
    return revocations.isRevoked(info.claims?.['gid'])
  }
}
