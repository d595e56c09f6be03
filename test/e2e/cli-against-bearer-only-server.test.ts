/**
 * Issue 28, item 1: a resource server that accepts Bearer tokens only, as the official SDK v2
 * builds one (its `requireBearerAuth` with a jose verifier checking our authorization server's
 * JWTs: JWKS, issuer, audience; RFC 9728 metadata without DPoP fields), in front of an SDK v2 MCP
 * server on node:http. Our authorization server offers DPoP, the resource does not say it takes
 * it: our CLI logs in with a Bearer token (it bound the token with DPoP before, and every request
 * was refused), lists and calls the tools, and `mcp-auth token` prints a token a plain `fetch` uses.
 * Item 11: a login says the scopes asked for and not granted.
 */
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { join } from 'node:path'
import {
  buildOAuthProtectedResourceMetadata,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  requireBearerAuth,
  type AuthInfo,
  type OAuthMetadata,
} from '@modelcontextprotocol/server'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error -- a plain ES module fixture, shared with a stdio child in other tests
import { createSdkV2Server } from '../fixtures/sdk-v2-server.mjs'
import { startAuthServer, type RunningAuthServer } from '../helpers/auth-server.js'
import { launchChromium } from '../helpers/chromium.js'
import { cliLoginInChromium, signInInChromium, spawnWaitingForLogin } from '../helpers/cli-browser-login.js'
import { runCli } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'

const ADA = { username: 'ada', password: 'ada password 1' }
/** An account that may be granted `mcp` only. */
const BOB = { username: 'bob', password: 'bob password 1' }
let browser: Browser
let as: RunningAuthServer
let mcpUrl: string
let store: string
let asMetadata: OAuthMetadata
/** Authorization schemes the resource saw, in order. */
const schemes: string[] = []
let close: (() => Promise<void>) | undefined

beforeAll(async () => {
  browser = await launchChromium()
  const port = await freePort()
  mcpUrl = `http://127.0.0.1:${port}/mcp`
  as = await startAuthServer({ resources: [{ uri: mcpUrl, scopes: ['mcp', 'files:read'], defaultScopes: ['mcp'] }] })
  await as.as.accounts.setUser(ADA.username, ADA.password)
  await as.as.accounts.setUser(BOB.username, BOB.password, {}, ['mcp'])
  store = join(as.dataDir, 'cli-tokens.json')
  asMetadata = (await (await fetch(`${as.origin}/.well-known/oauth-authorization-server`)).json()) as OAuthMetadata
  const jwks = createRemoteJWKSet(new URL(asMetadata.jwks_uri!))
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer: as.issuer, audience: mcpUrl })
        return {
          token,
          clientId: String(payload['client_id']),
          scopes: typeof payload['scope'] === 'string' ? payload['scope'].split(' ') : [],
          expiresAt: payload.exp!,
          resource: new URL(mcpUrl),
        }
      } catch (error) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, `token refused: ${(error as Error).message}`)
      }
    },
  }
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl))
  const metadata = buildOAuthProtectedResourceMetadata({
    oauthMetadata: asMetadata,
    resourceServerUrl: new URL(mcpUrl),
    scopesSupported: ['mcp'],
    dangerouslyAllowInsecureIssuerUrl: true,
  })
  const gate = requireBearerAuth({ verifier, requiredScopes: ['mcp'], expectedResource: new URL(mcpUrl), resourceMetadataUrl })
  const mcp = createMcpHandler(createSdkV2Server)
  const handler = toNodeHandler({
    async fetch(request) {
      const url = new URL(request.url)
      if (url.href === resourceMetadataUrl) return Response.json(metadata)
      if (url.pathname !== '/mcp') return new Response('not found', { status: 404 })
      schemes.push(request.headers.get('authorization')?.split(' ')[0] ?? '(none)')
      const auth = await gate(request)
      if (auth instanceof Response) return auth
      return mcp.fetch(request, { authInfo: auth })
    },
  })
  const server = createServer(handler as never)
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  close = async () => {
    await mcp.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})
afterAll(async () => {
  await browser?.close()
  await close?.()
  await as?.stop(true)
})

describe('the CLI against a resource server that accepts Bearer tokens only (SDK v2 requireBearerAuth)', () => {
  it('is a fair test: the authorization server offers DPoP, the resource metadata says nothing of it', async () => {
    expect(asMetadata.dpop_signing_alg_values_supported).toContain('ES256')
    const metadata = (await (await fetch(getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl)))).json()) as Record<string, unknown>
    expect(metadata['resource']).toBe(mcpUrl)
    expect(metadata['dpop_signing_alg_values_supported']).toBeUndefined()
    expect(metadata['dpop_bound_access_tokens_required']).toBeUndefined()
  })

  it('logs in with a Bearer token, then lists and calls the tools', async () => {
    const login = await cliLoginInChromium(browser, mcpUrl, store, ADA)
    expect(login.code, login.stderr).toBe(0)
    expect(login.stdout).toContain(`logged in to ${mcpUrl} (scope: mcp`)
    const stored = JSON.parse(await readFile(store, 'utf8')) as { tokens: Record<string, { token_type: string }> }
    expect(Object.values(stored.tokens).map((tokens) => tokens.token_type.toLowerCase())).toEqual(['bearer'])

    const tools = await runCli(['tools', mcpUrl, '--no-browser', '--store', store])
    expect(tools.code, tools.stderr).toBe(0)
    expect(tools.stdout).toMatch(/^echo {2}Echoes its text$/m)
    const call = await runCli(['call', mcpUrl, 'echo', '{"text":"past a bearer-only gate"}', '--no-browser', '--store', store])
    expect(call.code, call.stderr).toBe(0)
    expect(call.stdout).toContain('past a bearer-only gate')
    expect(schemes).not.toContain('DPoP')
  })

  it('prints with mcp-auth token the stored Bearer token (no second login), which a plain fetch uses', async () => {
    const token = await runCli(['token', mcpUrl, '--no-browser', '--store', store])
    expect(token.code, token.stderr).toBe(0)
    expect(token.stderr).toBe('')
    const stored = JSON.parse(await readFile(store, 'utf8')) as { tokens: Record<string, { access_token: string }> }
    expect(token.stdout).toBe(`${Object.values(stored.tokens)[0]!.access_token}\n`)
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.stdout.trim()}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'plain-fetch', version: '1' } },
      }),
    })
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('sdk-v2-server')
  })

  it('says which scopes asked for were not granted: the account may not have them', async () => {
    const waiting = await spawnWaitingForLogin(['login', mcpUrl, '--scope', 'mcp files:read', '--no-browser', '--store', join(as.dataDir, 'bob.json')])
    await signInInChromium(browser, waiting.authorizationUrl, BOB)
    const login = await waiting.exited
    expect(login.code, login.stderr).toBe(0)
    expect(login.stdout).toBe(`logged in to ${mcpUrl} (scope: mcp); not granted: files:read\n`)
  })
})
