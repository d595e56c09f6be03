import { describe, expect, it } from 'vitest'
import { resourceIdentifiesServer } from '../../../src/auth/client/resource-identifies-server.js'

const server = 'https://mcp.example.com/tenant/mcp'

describe('resourceIdentifiesServer', () => {
  it.each([
    ['accepts', 'the server URL itself', 'https://mcp.example.com/tenant/mcp'],
    ['accepts', 'the server URL in upper case, with the default port and a trailing slash', 'HTTPS://MCP.example.com:443/tenant/mcp/'],
    ['accepts', 'the origin (metadata published at the root)', 'https://mcp.example.com'],
    ['accepts', 'the origin with a slash', 'https://mcp.example.com/'],
    ['accepts', 'a parent path', 'https://mcp.example.com/tenant'],
    ['refuses', 'another host', 'https://evil.example.com/tenant/mcp'],
    ['refuses', 'another scheme', 'http://mcp.example.com/tenant/mcp'],
    ['refuses', 'another port', 'https://mcp.example.com:8443/tenant/mcp'],
    ['refuses', 'a sibling path', 'https://mcp.example.com/other'],
    ['refuses', 'a longer path', 'https://mcp.example.com/tenant/mcp/admin'],
    ['refuses', 'a path that stops inside a segment', 'https://mcp.example.com/ten'],
    ['refuses', 'a relative reference', 'mcp.example.com/tenant/mcp'],
    ['refuses', 'a fragment', 'https://mcp.example.com/tenant/mcp#x'],
    ['refuses', 'a URN', 'urn:example:mcp'],
  ])('%s %s', (verdict, _what, resource) => {
    expect(resourceIdentifiesServer(resource, server)).toBe(verdict === 'accepts')
  })

  it('matches a resource with a query only exactly', () => {
    expect(resourceIdentifiesServer(`${server}?v=1`, `${server}?v=1`)).toBe(true)
    expect(resourceIdentifiesServer('https://mcp.example.com/?v=1', `${server}?v=1`)).toBe(false)
  })
})
