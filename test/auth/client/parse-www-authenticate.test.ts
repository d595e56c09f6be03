import { describe, expect, it } from 'vitest'
import { bearerParams, parseWwwAuthenticate } from '../../../src/auth/client/parse-www-authenticate.js'
import { bearerChallenge } from '../../../src/auth/resource/www-authenticate.js'

describe('parseWwwAuthenticate', () => {
  it('reads a Bearer challenge with quoted and token values', () => {
    expect(parseWwwAuthenticate('Bearer realm=example, error="insufficient_scope", scope="mcp mcp:admin"')).toEqual([
      { scheme: 'bearer', params: { realm: 'example', error: 'insufficient_scope', scope: 'mcp mcp:admin' } },
    ])
  })

  it('reads several challenges in one header, commas inside quotes included', () => {
    expect(parseWwwAuthenticate('Basic realm="a, b", Bearer resource_metadata="https://x.example/.well-known/oauth-protected-resource", DPoP algs="ES256 RS256"')).toEqual([
      { scheme: 'basic', params: { realm: 'a, b' } },
      { scheme: 'bearer', params: { resource_metadata: 'https://x.example/.well-known/oauth-protected-resource' } },
      { scheme: 'dpop', params: { algs: 'ES256 RS256' } },
    ])
  })

  it('unescapes backslash escapes and round-trips what the challenge builder writes', () => {
    const header = bearerChallenge({ error: 'invalid_token', error_description: 'a "quoted" \\ value' })
    expect(bearerParams(header)).toEqual({ error: 'invalid_token', error_description: 'a "quoted" \\ value' })
  })

  it('reads a bare scheme and a token68 challenge', () => {
    expect(parseWwwAuthenticate('Bearer')).toEqual([{ scheme: 'bearer', params: {} }])
    expect(parseWwwAuthenticate('Negotiate abc123==')).toEqual([{ scheme: 'negotiate', params: {}, token68: 'abc123==' }])
  })

  it('keeps what it read before a malformed part', () => {
    expect(parseWwwAuthenticate('Bearer scope="unterminated')).toEqual([{ scheme: 'bearer', params: {} }])
  })

  it('is case-insensitive for schemes and parameter names', () => {
    expect(bearerParams('BEARER Resource_Metadata="u"')).toEqual({ resource_metadata: 'u' })
  })
})
