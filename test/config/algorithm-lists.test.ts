/**
 * The JWS algorithms a resource server accepts are one list (issue 29, item 4): access tokens and
 * DPoP proofs cannot drift apart, and neither admits `none` or an HMAC algorithm.
 */
import { describe, expect, it } from 'vitest'
import { defaults } from '../../src/config/defaults.js'

describe('resource server JWS algorithm defaults', () => {
  it('access tokens and DPoP proofs share one list', () => {
    expect(defaults.resourceServer.dpop.algorithms).toBe(defaults.resourceServer.algorithms)
  })

  it('holds asymmetric algorithms only', () => {
    expect(defaults.resourceServer.algorithms.length).toBeGreaterThan(0)
    for (const alg of defaults.resourceServer.algorithms) expect(alg).toMatch(/^(ES|PS|RS)(256|384|512)$|^EdDSA$/)
  })
})
