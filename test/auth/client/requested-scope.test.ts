import { describe, expect, it } from 'vitest'
import { requestedScope } from '../../../src/auth/client/requested-scope.js'

const offering = { scopes_supported: ['mcp', 'offline_access'] }
const notOffering = { scopes_supported: ['mcp', 'mcp:read'] }

describe('requestedScope', () => {
  it('adds offline_access to the selected scope when the authorization server lists it', () => {
    expect(requestedScope('mcp', offering)).toBe('mcp offline_access')
    expect(requestedScope('mcp offline_access', offering)).toBe('mcp offline_access')
  })

  it('never asks for offline_access when the authorization server lists scopes without it', () => {
    expect(requestedScope('mcp mcp:read', notOffering)).toBe('mcp mcp:read')
    expect(requestedScope('mcp offline_access', notOffering)).toBe('mcp')
    expect(requestedScope('offline_access', notOffering)).toBeUndefined()
  })

  it('leaves the selection alone when the authorization server lists no scopes', () => {
    expect(requestedScope('mcp offline_access', {})).toBe('mcp offline_access')
  })

  it('omits the scope when none is selected, whatever the server offers', () => {
    expect(requestedScope(undefined, offering)).toBeUndefined()
    expect(requestedScope('', offering)).toBeUndefined()
  })
})
