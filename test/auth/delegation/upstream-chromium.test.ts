import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import { McpOAuth } from '../../../src/auth/client/mcp-oauth.js'
import { FileTokenStore } from '../../../src/auth/client/token-store.js'
import { McpClient } from '../../../src/client/index.js'
import { StreamableHttpClientTransport } from '../../../src/transports/http-client/index.js'
import { launchChromium } from '../../helpers/chromium.js'
import type { RunningAuthServer } from '../../helpers/auth-server.js'
import type { ProtectedStack } from '../../helpers/protected-stack.js'
import { startUpstreamPair } from '../../helpers/upstream-pair.js'

/** Delegated login in a real browser: our AS → the upstream IdP's login page → back → our consent. */
let upstream: RunningAuthServer
let stack: ProtectedStack
let browser: Browser
let dir: string
let upstreamUserId: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-upstream-chromium-'))
  ;({ upstream, stack, upstreamUserId } = await startUpstreamPair({ user: { username: 'vera', password: 'vera password 1', claims: { name: 'Vera Upstream' } } }))
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  await stack?.stop()
  await upstream?.stop(true)
  await rm(dir, { recursive: true, force: true })
})

/** Logs in at the upstream IdP's page, allows there and here; returns the URL the browser ends on. */
async function browserLogin(url: string, until: (url: URL) => boolean): Promise<URL> {
  const context = await browser.newContext()
  const page = await context.newPage()
  let final: URL | undefined
  page.on('request', (request) => {
    const requested = new URL(request.url())
    if (until(requested)) final = requested
  })
  await page.goto(url)
  expect(new URL(page.url()).origin).toBe(new URL(upstream.issuer).origin) // the upstream's own login page
  await page.fill('#username', 'vera')
  await page.fill('#password', 'vera password 1')
  await page.click('#sign-in')
  // Then the consent pages still needed (the upstream's, ours; either may be remembered).
  for (let step = 0; step < 4 && final === undefined; step++) {
    const allow = page.locator('#allow')
    await Promise.race([
      allow.waitFor({ timeout: 5_000 }).catch(() => undefined),
      expect
        .poll(() => final, { timeout: 5_000 })
        .toBeDefined()
        .catch(() => undefined),
    ])
    if (final !== undefined) break
    if ((await allow.count()) > 0) await allow.click()
  }
  await expect.poll(() => final).toBeDefined()
  await context.close()
  return final!
}

async function mappedAccountOf(text: string) {
  const identity = JSON.parse(text) as { subject: string }
  return stack.as.accounts.findById(identity.subject)
}

describe('delegated login in Chromium', () => {
  it('our MCP client logs in through the upstream IdP and the tool sees the mapped identity', async () => {
    const auth = new McpOAuth(`${stack.origin}/mcp`, {
      store: new FileTokenStore(join(dir, 'ours.json')),
      handoff: (url) => void browserLogin(url.href, (requested) => requested.pathname === '/callback' && requested.searchParams.has('code')),
    })
    const client = new McpClient({ name: 'delegation-chromium', version: '1' })
    await client.connect(new StreamableHttpClientTransport(`${stack.origin}/mcp`, { fetch: auth.fetch }))
    const result = await client.callTool('whoami', {})
    await client.close()
    const account = await mappedAccountOf((result.content[0] as { text: string }).text)
    expect(account).toMatchObject({ username: 'vera', claims: { name: 'Vera Upstream' }, upstream: { issuer: upstream.issuer, subject: upstreamUserId } })
  })

  it('the official SDK client does the same', async () => {
    // The SDK has no listener of its own: the test catches the redirect and hands the code over.
    const callbackServer: Server = createServer((_req, res) => res.end('done'))
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve))
    const redirectUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`
    let authorizationUrl: URL | undefined
    const saved: { client?: unknown; tokens?: unknown; verifier?: string } = {}
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return redirectUrl
      },
      get clientMetadata() {
        return {
          redirect_uris: [redirectUrl],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          client_name: 'SDK via upstream',
        }
      },
      clientInformation: () => saved.client as never,
      saveClientInformation: (info) => void (saved.client = info),
      tokens: () => saved.tokens as never,
      saveTokens: (tokens) => void (saved.tokens = tokens),
      redirectToAuthorization: (url) => void (authorizationUrl = url),
      saveCodeVerifier: (verifier) => void (saved.verifier = verifier),
      codeVerifier: () => saved.verifier!,
    }
    try {
      const client = new Client({ name: 'sdk-delegation', version: '1' })
      const first = new StreamableHTTPClientTransport(new URL(`${stack.origin}/mcp`), { authProvider: provider })
      await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
      const callback = await browserLogin(authorizationUrl!.href, (requested) => requested.href.startsWith(redirectUrl))
      await first.finishAuth(callback.searchParams.get('code')!)
      const again = new Client({ name: 'sdk-delegation', version: '1' })
      await again.connect(new StreamableHTTPClientTransport(new URL(`${stack.origin}/mcp`), { authProvider: provider }))
      const result = await again.callTool({ name: 'whoami', arguments: {} })
      await again.close()
      const account = await mappedAccountOf((result.content as Array<{ text: string }>)[0]!.text)
      expect(account?.upstream).toEqual({ issuer: upstream.issuer, subject: upstreamUserId })
    } finally {
      callbackServer.closeAllConnections()
      await new Promise((resolve) => callbackServer.close(resolve))
    }
  })
})
