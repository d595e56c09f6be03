/**
 * Whole OAuth flows against `mcp-auth start` (the built CLI, one origin for the authorization
 * server and the protected demo MCP server), driven by real clients over real HTTP:
 * - the official SDK's Streamable HTTP client with an OAuthClientProvider, starting from the bare
 *   MCP URL (401 → protected resource metadata → AS metadata → DCR → PKCE → token → tool call);
 * - a 2025-03-26 client that never reads protected resource metadata and never sends `resource`,
 *   using the default endpoint paths under the authorization base URL.
 * Login and consent go through our HTML forms (test/helpers/form-login.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { UnauthorizedError, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { decodeJwt } from 'jose'
import { calculatePKCECodeChallenge, randomPKCECodeVerifier, randomState } from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSse } from '../../src/transports/http/read-sse.js'
import { startMainJob } from '../helpers/cli-process.js'
import { formLogin } from '../helpers/form-login.js'

const USERNAME = 'demo'
const PASSWORD = 'sdk oauth e2e password'
/** A loopback redirect URI nobody listens on: formLogin stops at it (RFC 8252 §7.3). */
const REDIRECT_URI = 'http://127.0.0.1:43117/callback'
const ACCEPT_BOTH = 'application/json, text/event-stream'

let origin: string
let stop: (() => Promise<void>) | undefined

beforeAll(async () => {
  const job = await startMainJob(PASSWORD, 'mcp-auth-sdk-oauth-')
  origin = job.origin
  stop = job.stop
})

afterAll(async () => {
  await stop?.()
})

/** What an MCP host keeps for one server, in memory; records where it was asked to send the user. */
class InMemoryOAuthClientProvider implements OAuthClientProvider {
  readonly authorizationUrls: URL[] = []
  #clientInformation: OAuthClientInformationMixed | undefined
  #tokens: OAuthTokens | undefined
  #codeVerifier: string | undefined
  #discoveryState: OAuthDiscoveryState | undefined

  get redirectUrl(): string {
    return REDIRECT_URI
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'sdk-oauth-client e2e',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#clientInformation
  }

  saveClientInformation(clientInformation: OAuthClientInformationMixed): void {
    this.#clientInformation = clientInformation
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrls.push(authorizationUrl)
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#codeVerifier = codeVerifier
  }

  codeVerifier(): string {
    if (this.#codeVerifier === undefined) throw new Error('no code verifier saved')
    return this.#codeVerifier
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discoveryState = state
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discoveryState
  }
}

/** The real fetch, with each request's method, path and status written down. */
function recordingFetch(log: string[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init)
    const response = await fetch(request)
    log.push(`${request.method} ${new URL(request.url).pathname} ${response.status}`)
    return response
  }
}

describe('official SDK client ↔ mcp-auth start', () => {
  it('connects from the bare MCP URL through discovery, registration and PKCE login, then calls whoami as the registered client', async () => {
    const provider = new InMemoryOAuthClientProvider()
    const requests: string[] = []
    const mcpUrl = new URL(`${origin}/mcp`)
    const client = new Client({ name: 'sdk-oauth-e2e', version: '1.0.0' })

    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: recordingFetch(requests) })
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(provider.authorizationUrls).toHaveLength(1)
    const authorizationUrl = provider.authorizationUrls[0]!
    const registered = provider.clientInformation()
    expect(registered?.client_id).toEqual(expect.any(String))
    expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${origin}/authorize`)
    expect(Object.fromEntries(authorizationUrl.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: registered!.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge_method: 'S256',
      resource: `${origin}/mcp`,
    })
    expect(requests).toEqual(['POST /mcp 401', 'GET /.well-known/oauth-protected-resource/mcp 200', 'GET /.well-known/oauth-authorization-server 200', 'POST /register 201'])

    const { callback, pages } = await formLogin(authorizationUrl, { username: USERNAME, password: PASSWORD, redirectUri: REDIRECT_URI })
    expect(pages).toEqual(['login', 'consent'])
    expect(callback.searchParams.get('state')).toBe(authorizationUrl.searchParams.get('state'))
    const code = callback.searchParams.get('code')
    expect(code).toEqual(expect.any(String))

    requests.length = 0
    await first.finishAuth(code!)
    expect(requests).toContain('POST /token 200')
    const tokens = provider.tokens()
    expect(tokens).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: expect.stringMatching(/^bearer$/i) })

    const second = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: recordingFetch(requests) })
    try {
      await client.connect(second)
      const result = await client.callTool({ name: 'whoami', arguments: {} })
      const content = result.content as Array<{ type: string; text: string }>
      const identity = JSON.parse(content[0]!.text) as { subject: string; clientId: string; scopes: string[] }
      expect(identity.subject).toEqual(expect.any(String))
      expect(identity.clientId).toBe(registered!.client_id)
      expect(identity.scopes).toContain('mcp')
      expect(requests).not.toContain('POST /mcp 401')
    } finally {
      await client.close()
    }
  })
})

interface JsonRpcResponse {
  jsonrpc: '2.0'
  id: number
  result?: Record<string, unknown>
  error?: { code: number; message: string }
}

/** The JSON-RPC response to a POST, whether the server answered with JSON or an SSE stream. */
async function jsonRpcAnswer(response: Response): Promise<JsonRpcResponse> {
  if (response.headers.get('content-type')?.startsWith('text/event-stream') !== true) return (await response.json()) as JsonRpcResponse
  const messages: JsonRpcResponse[] = []
  await readSse(response.body!, { onEvent: (event) => messages.push(JSON.parse(event.data) as JsonRpcResponse) })
  const answer = messages.find((message) => 'result' in message || 'error' in message)
  if (answer === undefined) throw new Error(`no JSON-RPC response in the stream: ${JSON.stringify(messages)}`)
  return answer
}

describe('2025-03-26 client (AS metadata and default paths only) ↔ mcp-auth start', () => {
  it('gets a token bound to the MCP resource without sending resource, and calls echo with it', async () => {
    const mcpUrl = `${origin}/mcp`
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'legacy-2025-03-26', version: '1.0.0' } },
    }

    const unauthenticated = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH }, body: JSON.stringify(initialize) })
    expect(unauthenticated.status).toBe(401)
    await unauthenticated.body?.cancel()

    // 2025-03-26 basic/authorization §2.3.2: the authorization base URL is the MCP URL without its path.
    const metadataResponse = await fetch(`${origin}/.well-known/oauth-authorization-server`)
    expect(metadataResponse.status).toBe(200)
    const metadata = (await metadataResponse.json()) as Record<string, unknown>
    expect(metadata['registration_endpoint']).toBe(`${origin}/register`)
    expect(metadata['authorization_endpoint']).toBe(`${origin}/authorize`)
    expect(metadata['token_endpoint']).toBe(`${origin}/token`)
    expect(metadata['code_challenge_methods_supported']).toContain('S256')

    const registration = await fetch(`${origin}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'legacy-2025-03-26',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      }),
    })
    expect(registration.status).toBe(201)
    const { client_id: clientId } = (await registration.json()) as { client_id: string }

    const codeVerifier = randomPKCECodeVerifier()
    const state = randomState()
    const authorizationUrl = new URL(`${origin}/authorize`)
    authorizationUrl.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'mcp',
      state,
      code_challenge: await calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    }).toString()
    expect(authorizationUrl.searchParams.has('resource')).toBe(false)
    const { callback } = await formLogin(authorizationUrl, { username: USERNAME, password: PASSWORD, redirectUri: REDIRECT_URI })
    expect(callback.searchParams.get('error')).toBeNull()
    expect(callback.searchParams.get('state')).toBe(state)
    const code = callback.searchParams.get('code')!

    const tokenResponse = await fetch(`${origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: codeVerifier }),
    })
    expect(tokenResponse.status).toBe(200)
    const tokens = (await tokenResponse.json()) as { access_token: string; token_type: string; scope?: string }
    expect(tokens.token_type).toMatch(/^bearer$/i)
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: mcpUrl, client_id: clientId })

    const headers = { 'content-type': 'application/json', accept: ACCEPT_BOTH, authorization: `Bearer ${tokens.access_token}` }
    const initialized = await fetch(mcpUrl, { method: 'POST', headers, body: JSON.stringify(initialize) })
    expect(initialized.status).toBe(200)
    const sessionId = initialized.headers.get('mcp-session-id')
    const initializeAnswer = await jsonRpcAnswer(initialized)
    expect(initializeAnswer.result?.['protocolVersion']).toBe('2025-03-26')

    const sessionHeaders = { ...headers, 'mcp-protocol-version': '2025-03-26', ...(sessionId === null ? {} : { 'mcp-session-id': sessionId }) }
    const notified = await fetch(mcpUrl, { method: 'POST', headers: sessionHeaders, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
    expect(notified.status).toBe(202)
    await notified.body?.cancel()

    const called = await fetch(mcpUrl, {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'bound by default' } } }),
    })
    expect(called.status).toBe(200)
    const callAnswer = await jsonRpcAnswer(called)
    expect(callAnswer.error).toBeUndefined()
    expect(callAnswer.result?.['content']).toEqual([{ type: 'text', text: 'bound by default' }])

    if (sessionId !== null) {
      const ended = await fetch(mcpUrl, { method: 'DELETE', headers: sessionHeaders })
      await ended.body?.cancel()
    }
  })
})
