import { describe, expect, it } from 'vitest'
import { applicationType } from '../../../src/auth/client/application-type.js'

describe('applicationType', () => {
  it.each([
    ['native', 'loopback redirects (the login helper’s own)', ['http://127.0.0.1:49152/callback', 'http://localhost:8080/cb', 'http://[::1]:9000/cb']],
    ['native', 'a custom scheme', ['com.example.app:/oauth/callback']],
    ['native', 'a mix of loopback and remote redirects', ['http://127.0.0.1:49152/callback', 'https://app.example.com/callback']],
    ['native', 'no redirect URI', []],
    ['web', 'https redirects on a remote host', ['https://app.example.com/callback']],
    ['web', 'http redirects on a remote host', ['http://intranet.example/callback']],
  ])('is %s for %s', (expected, _what, uris) => {
    expect(applicationType(uris)).toBe(expected)
  })
})
