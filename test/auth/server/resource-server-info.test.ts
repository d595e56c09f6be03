// Issue 18: the resource server info oidc-provider asks for on every token request is built once
// per resource and scope. Kept objects must answer exactly what a fresh build would, per
// registered scope, and no request may change them for the next.
import { describe, expect, it } from 'vitest'
import { resolveResource } from '../../../src/auth/server/options.js'
import { ResourceServerInfos, resourceServerInfo } from '../../../src/auth/server/provider/resource-server-info.js'
import { ScopePolicy } from '../../../src/auth/server/provider/scope-policy.js'

const mcp = resolveResource({ uri: 'https://mcp.example/mcp', scopes: ['mcp', 'mcp:admin', 'mcp:read'], defaultScopes: ['mcp'] })
const opaque = resolveResource({ uri: 'https://other.example/api', scopes: ['api'], tokenFormat: 'opaque', accessTokenTtlSeconds: 120 })
const policy = new ScopePolicy([mcp, opaque], ['mcp'])

describe('ResourceServerInfos', () => {
  it('answers what a fresh build answers: every scope for a user token, the registered ones (or the defaults) for client_credentials', () => {
    const infos = new ResourceServerInfos({ scopes: policy, accessTokenAlg: 'ES256', maxScopes: 8 })
    expect(infos.forUser(mcp)).toEqual(resourceServerInfo(mcp, 'mcp mcp:admin mcp:read', 'ES256'))
    expect(infos.forUser(opaque)).toEqual({ scope: 'api', audience: 'https://other.example/api', accessTokenTTL: 120, accessTokenFormat: 'opaque' })
    expect(infos.forClientCredentials(mcp, 'mcp:read mcp openid')).toEqual(resourceServerInfo(mcp, 'mcp mcp:read', 'ES256'))
    expect(infos.forClientCredentials(mcp, undefined).scope).toBe('mcp')
    expect(infos.forClientCredentials(mcp, '').scope).toBe('')
    expect(infos.forClientCredentials(mcp, 'mcp:admin').scope).toBe('mcp:admin')
  })

  it('hands the same frozen object to every request with the same resource and registered scope', () => {
    const infos = new ResourceServerInfos({ scopes: policy, accessTokenAlg: 'ES256', maxScopes: 8 })
    const first = infos.forClientCredentials(mcp, 'mcp')
    expect(infos.forClientCredentials(mcp, 'mcp')).toBe(first)
    expect(infos.forUser(mcp)).toBe(infos.forUser(mcp))
    expect(infos.forClientCredentials(mcp, 'mcp:admin')).not.toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
    expect(Object.isFrozen(first.jwt?.sign)).toBe(true)
    expect(() => {
      ;(first as { scope: string }).scope = 'mcp mcp:admin'
    }).toThrow(TypeError)
    expect(() => {
      ;(first.jwt!.sign as { alg: string }).alg = 'none'
    }).toThrow(TypeError)
    expect(infos.forClientCredentials(mcp, 'mcp').scope).toBe('mcp')
  })

  it('keeps at most maxScopes registered scopes per resource, the oldest forgotten first', () => {
    const infos = new ResourceServerInfos({ scopes: policy, accessTokenAlg: 'ES256', maxScopes: 2 })
    const a = infos.forClientCredentials(mcp, 'mcp')
    const b = infos.forClientCredentials(mcp, 'mcp:read')
    expect(infos.forClientCredentials(mcp, 'mcp')).toBe(a)
    infos.forClientCredentials(mcp, 'mcp:admin')
    // 'mcp' was the oldest: built again (same answer, new object), which in turn pushes out 'mcp:read'
    const again = infos.forClientCredentials(mcp, 'mcp')
    expect(again).not.toBe(a)
    expect(again).toEqual(a)
    expect(infos.forClientCredentials(mcp, 'mcp:read')).not.toBe(b)
  })
})
