import { describe, expect, it } from 'vitest'
import { checkResponseIssuer } from '../../../src/auth/client/check-response-issuer.js'
import { McpOAuthError } from '../../../src/auth/client/mcp-oauth-error.js'

const issuer = 'https://as.example.com'
const advertising = { issuer, authorization_response_iss_parameter_supported: true }
const silent = { issuer }

function response(query: string): URL {
  return new URL(`http://127.0.0.1:5000/callback?code=c&state=s${query}`)
}

function verdict(query: string, server: typeof advertising | typeof silent): 'proceed' | string {
  try {
    checkResponseIssuer(response(query), server)
    return 'proceed'
  } catch (error) {
    expect(error).toBeInstanceOf(McpOAuthError)
    expect((error as McpOAuthError).code).toBe('authorization')
    return 'refuse'
  }
}

describe('checkResponseIssuer (the MCP 2026-07-28 table)', () => {
  it.each([
    ['advertised, iss the issuer', 'proceed', advertising, `&iss=${encodeURIComponent(issuer)}`],
    ['advertised, iss absent', 'refuse', advertising, ''],
    ['advertised, iss another server', 'refuse', advertising, '&iss=https%3A%2F%2Fevil.example.com'],
    ['not advertised, iss absent', 'proceed', silent, ''],
    ['not advertised, iss the issuer', 'proceed', silent, `&iss=${encodeURIComponent(issuer)}`],
    ['not advertised, iss another server', 'refuse', silent, '&iss=https%3A%2F%2Fevil.example.com'],
  ])('%s: %s', (_case, expected, server, query) => {
    expect(verdict(query, server)).toBe(expected)
  })

  it.each([
    ['a trailing slash', 'https://as.example.com/'],
    ['an upper-case host', 'https://AS.example.com'],
    ['the default port', 'https://as.example.com:443'],
    ['a percent-encoded character', 'https://as.example%2Ecom'],
  ])('refuses an iss that equals the issuer only after normalisation: %s', (_variant, iss) => {
    expect(verdict(`&iss=${encodeURIComponent(iss)}`, advertising)).toBe('refuse')
  })

  it('refuses iss given twice, even when both are right', () => {
    expect(verdict(`&iss=${encodeURIComponent(issuer)}&iss=${encodeURIComponent(issuer)}`, advertising)).toBe('refuse')
  })

  it('does not repeat the error fields of a response from the wrong server', () => {
    const url = response('&iss=https%3A%2F%2Fevil.example.com&error=access_denied&error_description=call%20this%20number')
    const message = (() => {
      try {
        checkResponseIssuer(url, advertising)
        return ''
      } catch (error) {
        return (error as Error).message
      }
    })()
    expect(message).toContain('evil.example.com')
    expect(message).not.toMatch(/access_denied|call this number/)
  })
})
