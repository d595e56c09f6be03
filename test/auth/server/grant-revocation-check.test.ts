// Issue 29, item 3: the revocation check a resource server in the authorization server's process
// is handed answers from the revoked-grant set itself (its `gid` claim), with no step through the
// AuthorizationServer facade.
import { describe, expect, it } from 'vitest'
import { grantRevocationCheck } from '../../../src/auth/server/stores/grant-revocation-check.js'
import { GrantRevocations, grantDigest } from '../../../src/auth/server/stores/grant-revocations.js'
import { createMemoryStorage } from '../../../src/storage/memory-storage.js'

describe('grantRevocationCheck', () => {
  it('refuses a token whose gid claim names a revoked grant, and only that one', async () => {
    const revocations = await GrantRevocations.load(createMemoryStorage().records, 3600)
    try {
      const check = grantRevocationCheck(revocations)
      const info = (grantId: string) => ({ token: 't', clientId: 'c', scopes: [], claims: { gid: grantDigest(grantId) } })
      expect(check('t', info('grant-1'))).toBe(false)
      await revocations.revoke('grant-1')
      expect(check('t', info('grant-1'))).toBe(true)
      expect(check('t', info('grant-2'))).toBe(false)
    } finally {
      await revocations.close()
    }
  })

  it('lets a token without a gid claim through (not one of ours, or from before gid)', async () => {
    const revocations = await GrantRevocations.load(createMemoryStorage().records, 3600)
    try {
      await revocations.revoke('grant-1')
      const check = grantRevocationCheck(revocations)
      expect(check('t', { token: 't', clientId: 'c', scopes: [] })).toBe(false)
      expect(check('t', { token: 't', clientId: 'c', scopes: [], claims: { gid: 42 } })).toBe(false)
    } finally {
      await revocations.close()
    }
  })

  it('lapses once every token of the revoked grant has expired', async () => {
    let now = 1_000_000
    const revocations = await GrantRevocations.load(createMemoryStorage().records, 60, { now: () => now })
    try {
      await revocations.revoke('grant-1')
      const check = grantRevocationCheck(revocations)
      const info = { token: 't', clientId: 'c', scopes: [], claims: { gid: grantDigest('grant-1') } }
      expect(check('t', info)).toBe(true)
      now += 61_000
      expect(check('t', info)).toBe(false)
    } finally {
      await revocations.close()
    }
  })
})
