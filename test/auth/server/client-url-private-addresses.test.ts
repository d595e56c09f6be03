/**
 * Issue 27, item 5: URLs a client supplies (client ID metadata documents, a client's jwks_uri)
 * never reach private addresses on a real deployment: the development allowance is refused
 * unless the issuer is a loopback host.
 */
import { describe, expect, it } from 'vitest'
import { resolveOptions } from '../../../src/auth/server/options.js'

describe('clientIdMetadataDocuments.allowPrivateAddresses', () => {
  it('is refused for an issuer that is not a loopback host', () => {
    expect(() => resolveOptions({ issuer: 'https://auth.example.com', clientIdMetadataDocuments: { allowPrivateAddresses: true } })).toThrow(
      /clientIdMetadataDocuments\.allowPrivateAddresses: only for development on a loopback issuer; https:\/\/auth\.example\.com fetches what clients name on public addresses only/,
    )
  })

  it('is accepted for development on a loopback issuer', () => {
    for (const issuer of ['http://localhost:4000', 'http://127.0.0.1:4000', 'http://[::1]:4000']) {
      expect(resolveOptions({ issuer, clientIdMetadataDocuments: { allowPrivateAddresses: true } }).clientIdMetadataDocuments.allowPrivateAddresses, issuer).toBe(true)
    }
  })
})
