/**
 * The official SDK v2 client (@modelcontextprotocol/client 2.4), pinned to 2026-07-28, logs in to
 * `mcp-auth start` from the bare MCP URL: 401 → protected resource metadata → AS metadata →
 * registration → PKCE with our login and consent forms → RFC 9207 `iss` check → token, then
 * calls a tool statelessly with the bearer token.
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMainJob } from '../helpers/cli-process.js'
import { formLogin } from '../helpers/form-login.js'
import { MemoryProvider } from '../helpers/sdk-v2-provider.js'

const PASSWORD = 'sdk v2 oauth e2e password'
const REDIRECT_URI = 'http://127.0.0.1:43118/callback'

let origin: string
let stop: (() => Promise<void>) | undefined

beforeAll(async () => {
  const job = await startMainJob(PASSWORD, 'mcp-auth-sdk-v2-oauth-')
  origin = job.origin
  stop = job.stop
})

afterAll(async () => {
  await stop?.()
})

describe('SDK v2 OAuth client pinned to 2026-07-28 ↔ mcp-auth start', () => {
  it('logs in from the bare MCP URL and calls whoami on the stateless path with its token', async () => {
    const provider = new MemoryProvider({ redirectUri: REDIRECT_URI, clientName: 'sdk v2 e2e' })
    const mcpUrl = new URL(`${origin}/mcp`)
    const client = new Client({ name: 'sdk-v2-oauth', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(provider.authorizationUrls).toHaveLength(1)
    const authorizationUrl = provider.authorizationUrls[0]!
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${origin}/mcp`)

    const { callback } = await formLogin(authorizationUrl, { username: 'demo', password: PASSWORD, redirectUri: REDIRECT_URI })
    // RFC 9207: the authorization response names the issuer, and the SDK checks it
    expect(callback.searchParams.get('iss')).toBe(origin)
    await first.finishAuth(callback.searchParams)
    expect(provider.tokens()?.access_token).toEqual(expect.any(String))

    const second = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })
    try {
      await client.connect(second)
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
      const result = await client.callTool({ name: 'whoami', arguments: {} })
      const identity = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { clientId: string; scopes: string[] }
      expect(identity.clientId).toBe(provider.clientInformation()!.client_id)
      expect(identity.scopes).toContain('mcp')
    } finally {
      await client.close()
    }
  })

  it('is refused with 401 and a challenge on the stateless path without a token', async () => {
    const response = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer .*resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/)
  })
})
