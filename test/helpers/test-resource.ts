import type { IncomingMessage, ServerResponse } from 'node:http'
import { decodeJwt } from 'jose'
import { listenOnLoopback } from './listen.js'

export interface TestResource {
  /** http://127.0.0.1:<port> */
  origin: string
  /** The protected endpoint: `${origin}/mcp`. */
  url: string
  /** What the metadata says; change it to move the resource to another authorization server. */
  metadata: { resource: string; authorization_servers: string[]; scopes_supported?: string[] }
  /** Every access token presented to `/mcp` (Bearer or DPoP scheme), in order. */
  bearers: string[]
  /** The scheme of each presented token, in the same order. */
  schemes: string[]
  close(): Promise<void>
}

/**
 * A protected resource on node:http for login-helper tests. It publishes RFC 9728 metadata at the
 * path-aware address (`metadata`, mutable) and answers `POST /mcp` with 200 only for a JWT access
 * token whose `iss` is the authorization server the metadata currently names, with the Bearer or
 * the DPoP scheme (proofs are not checked here: test/auth/resource does that); anything else gets
 * a 401 challenge pointing at the metadata. It is not an MCP server: tests drive the login
 * helper's `fetch` directly, so they do not depend on the MCP client.
 */
export async function startTestResource(options: { authorizationServer?: string; scopes?: string[] } = {}): Promise<TestResource> {
  const state: { resource?: TestResource } = {}
  const listening = await listenOnLoopback((req: IncomingMessage, res: ServerResponse) => {
    const resource = state.resource!
    const path = new URL(req.url ?? '/', resource.origin).pathname
    if (req.method === 'GET' && path === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(resource.metadata))
      return
    }
    if (path !== '/mcp') {
      res.writeHead(404).end()
      return
    }
    const presented = /^(Bearer|DPoP) (.+)$/.exec(req.headers.authorization ?? '')
    const bearer = presented?.[2]
    if (bearer !== undefined) {
      resource.bearers.push(bearer)
      resource.schemes.push(presented![1]!)
    }
    if (bearer !== undefined && issuerOf(bearer) === resource.metadata.authorization_servers[0]) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
      return
    }
    const scope = resource.metadata.scopes_supported?.join(' ')
    res
      .writeHead(401, {
        'www-authenticate': `Bearer error="invalid_token", resource_metadata="${resource.origin}/.well-known/oauth-protected-resource/mcp"${scope ? `, scope="${scope}"` : ''}`,
      })
      .end()
  })
  state.resource = {
    origin: listening.url,
    url: `${listening.url}/mcp`,
    metadata: {
      resource: `${listening.url}/mcp`,
      authorization_servers: options.authorizationServer === undefined ? [] : [options.authorizationServer],
      ...(options.scopes ? { scopes_supported: options.scopes } : {}),
    },
    bearers: [],
    schemes: [],
    close: listening.close,
  }
  return state.resource
}

function issuerOf(token: string): string | undefined {
  try {
    return decodeJwt(token).iss
  } catch {
    return undefined
  }
}
