import { describe, expect, it } from 'vitest'
import { bearerChallenge } from '../../../src/auth/resource/www-authenticate.js'
import { canonicalResourceUri, protectedResourceMetadataUrl } from '../../../src/auth/resource/resource-uri.js'

describe('bearerChallenge', () => {
  it('quotes every value and escapes quotes and backslashes', () => {
    expect(bearerChallenge({ error: 'invalid_token', error_description: 'a "quoted" \\ value' })).toBe(
      'Bearer error="invalid_token", error_description="a \\"quoted\\" \\\\ value"',
    )
  })

  it('refuses a value that would inject a header line', () => {
    expect(() => bearerChallenge({ error_description: 'x\r\nSet-Cookie: a=b' })).toThrow(/control characters/)
  })

  it('leaves out undefined parameters and says only Bearer when none remain', () => {
    expect(bearerChallenge({ scope: undefined })).toBe('Bearer')
  })
})

describe('canonicalResourceUri', () => {
  it.each([
    ['HTTPS://MCP.Example.com:443/mcp', 'https://mcp.example.com/mcp'],
    ['https://mcp.example.com/mcp/', 'https://mcp.example.com/mcp'],
    ['https://mcp.example.com/', 'https://mcp.example.com'],
    ['http://localhost:4000/mcp', 'http://localhost:4000/mcp'],
  ])('canonicalises %s to %s', (input, expected) => {
    expect(canonicalResourceUri(input)).toBe(expected)
  })

  it('refuses a fragment', () => {
    expect(() => canonicalResourceUri('https://mcp.example.com/mcp#x')).toThrow(/fragment/)
  })

  it('places the metadata path before the resource path (RFC 9728 §3.1)', () => {
    expect(protectedResourceMetadataUrl('https://mcp.example.com/tenant/mcp')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp')
    expect(protectedResourceMetadataUrl('https://mcp.example.com/')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource')
  })
})
