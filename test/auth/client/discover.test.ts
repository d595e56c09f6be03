import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { discoverAuthorization, DiscoveryError } from '../../../src/auth/client/discover.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { listenOnLoopback } from '../../helpers/listen.js'
import { startTestResource, type TestResource } from '../../helpers/test-resource.js'

let resource: TestResource
let as: RunningAuthServer

beforeAll(async () => {
  resource = await startTestResource()
  as = await startAuthServer({ resources: [{ uri: resource.url, scopes: ['mcp'] }] })
})
afterAll(async () => {
  await resource.close()
  await as.stop(true)
})

/** A server answering each path with a JSON document (404 elsewhere). */
async function serveJson(routes: (origin: string) => Record<string, unknown>): Promise<{ origin: string; close(): Promise<void> }> {
  let documents: Record<string, unknown> = {}
  const server = await listenOnLoopback((req: IncomingMessage, res: ServerResponse) => {
    const document = documents[new URL(req.url ?? '/', 'http://x').pathname]
    if (document === undefined) res.writeHead(404).end()
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document))
  })
  documents = routes(server.url)
  return { origin: server.url, close: server.close }
}

describe('discoverAuthorization: authorization server metadata issuer (RFC 8414 §3.3)', () => {
  it('uses the metadata when its issuer is the identifier the protected resource names', async () => {
    resource.metadata.authorization_servers = [as.issuer]
    const discovered = await discoverAuthorization(resource.url, null)
    expect(discovered.server.issuer).toBe(as.issuer)
    expect(discovered.server.token_endpoint).toBe(`${as.issuer}/token`)
  })

  it('refuses metadata that names another issuer, saying which', async () => {
    const attacker = await serveJson((origin) => ({
      '/.well-known/oauth-authorization-server': { issuer: 'https://attacker.example.com', authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token` },
    }))
    resource.metadata.authorization_servers = [attacker.origin]
    try {
      const error = await discoverAuthorization(resource.url, null).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(DiscoveryError)
      expect((error as Error).message).toContain(`names the issuer "https://attacker.example.com", not "${attacker.origin}"`)
    } finally {
      await attacker.close()
    }
  })

  it('refuses metadata whose issuer equals the identifier only after URL normalisation (a trailing slash)', async () => {
    // The resource names "http://127.0.0.1:<port>/"; the server's metadata says "http://127.0.0.1:<port>".
    resource.metadata.authorization_servers = [`${as.issuer}/`]
    await expect(discoverAuthorization(resource.url, null)).rejects.toThrow(`names the issuer "${as.issuer}", not "${as.issuer}/"`)
  })

  it('refuses a 2025-03-26 server whose root metadata names an issuer other than its origin', async () => {
    const legacy = await serveJson((origin) => ({
      '/.well-known/oauth-authorization-server': { issuer: `${origin}/oauth`, authorization_endpoint: `${origin}/oauth/authorize`, token_endpoint: `${origin}/oauth/token` },
    }))
    try {
      await expect(discoverAuthorization(`${legacy.origin}/mcp`, null)).rejects.toThrow(`names the issuer "${legacy.origin}/oauth", not "${legacy.origin}"`)
    } finally {
      await legacy.close()
    }
  })

  it('uses a 2025-03-26 server’s root metadata whose issuer is its origin', async () => {
    const legacy = await serveJson((origin) => ({
      '/.well-known/oauth-authorization-server': { issuer: origin, authorization_endpoint: `${origin}/oauth/authorize`, token_endpoint: `${origin}/oauth/token` },
    }))
    try {
      const discovered = await discoverAuthorization(`${legacy.origin}/mcp`, null)
      expect(discovered.server.authorization_endpoint).toBe(`${legacy.origin}/oauth/authorize`)
      expect(discovered.defaultPaths).toBe(false)
    } finally {
      await legacy.close()
    }
  })
})

describe('discoverAuthorization: the protected resource metadata must name this server (RFC 9728 §3.3)', () => {
  it('refuses metadata describing a resource on another origin', async () => {
    resource.metadata.authorization_servers = [as.issuer]
    resource.metadata.resource = 'https://evil.example.com/mcp'
    try {
      await expect(discoverAuthorization(resource.url, null)).rejects.toThrow(`describes the resource "https://evil.example.com/mcp", which is not ${resource.url}`)
    } finally {
      resource.metadata.resource = resource.url
    }
  })

  it('refuses metadata describing another resource on the same origin', async () => {
    resource.metadata.authorization_servers = [as.issuer]
    resource.metadata.resource = `${resource.origin}/other`
    try {
      await expect(discoverAuthorization(resource.url, null)).rejects.toThrow(DiscoveryError)
    } finally {
      resource.metadata.resource = resource.url
    }
  })

  it('accepts the origin as the resource and keeps it verbatim for the resource parameter', async () => {
    resource.metadata.authorization_servers = [as.issuer]
    resource.metadata.resource = resource.origin
    try {
      expect((await discoverAuthorization(resource.url, null)).resource).toBe(resource.origin)
    } finally {
      resource.metadata.resource = resource.url
    }
  })
})
