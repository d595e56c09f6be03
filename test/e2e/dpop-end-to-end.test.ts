/**
 * Issue 17, end to end against `mcp-auth start --dpop-nonces` (a real process): our client and
 * the official SDK v2 client log in through the login and consent pages with DPoP and call tools
 * with DPoP-bound tokens; then a thief who stole our client's access token tries every way to use
 * it without the key, and each is refused with the challenge RFC 9449 defines.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, DpopSession, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client'
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { McpOAuth } from '../../src/auth/client/mcp-oauth.js'
import { FileTokenStore } from '../../src/auth/client/token-store.js'
import { McpClient } from '../../src/client/index.js'
import { StreamableHttpClientTransport } from '../../src/transports/http-client/index.js'
import { accessTokenHash } from '../../src/auth/resource/dpop-proof.js'
import { startMainJob } from '../helpers/cli-process.js'
import { formHandoff } from '../helpers/form-handoff.js'
import { formLogin } from '../helpers/form-login.js'
import { MemoryProvider } from '../helpers/sdk-v2-provider.js'

const PASSWORD = 'dpop e2e password'
const REDIRECT_URI = 'http://127.0.0.1:43119/callback'

let origin: string
let stop: (() => Promise<void>) | undefined
let dir: string

beforeAll(async () => {
  const job = await startMainJob(PASSWORD, 'mcp-auth-dpop-e2e-', ['--dpop-nonces'])
  origin = job.origin
  stop = job.stop
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-dpop-client-'))
})
afterAll(async () => {
  await stop?.()
  await rm(dir, { recursive: true, force: true })
})

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'thief', version: '1' } },
})

function post(headers: Record<string, string>, path = '/mcp') {
  return fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
    body: INITIALIZE,
  }).then(async (response) => ({
    status: response.status,
    challenge: response.headers.get('www-authenticate') ?? '',
    nonce: response.headers.get('dpop-nonce'),
    text: await response.text(),
  }))
}

interface Key {
  privateKey: CryptoKey
  jwk: JWK
}

function proof(key: Key, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT({ jti: randomUUID(), htm: 'POST', htu: `${origin}/mcp`, iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey)
}

describe('DPoP end to end against mcp-auth start', () => {
  let stolen: string
  let ownerKey: Key

  it('our client logs in through the pages with DPoP, keeps its key in the 0600 store, and calls a tool with a bound token', async () => {
    const storeFile = join(dir, 'tokens.json')
    const auth = new McpOAuth(`${origin}/mcp`, { store: new FileTokenStore(storeFile), handoff: formHandoff({ password: PASSWORD }), clientName: 'dpop e2e' })
    const client = new McpClient({ name: 'dpop-e2e', version: '1' })
    await client.connect(new StreamableHttpClientTransport(`${origin}/mcp`, { fetch: auth.fetch }))
    try {
      const result = await client.callTool('whoami', {})
      expect(JSON.stringify(result)).toContain('demo')
    } finally {
      await client.close()
    }
    expect((await stat(storeFile)).mode & 0o777).toBe(0o600)
    const stored = JSON.parse(await readFile(storeFile, 'utf8')) as {
      tokens: Record<string, { access_token: string; token_type: string }>
      dpopKeys: Record<string, { privateJwk: JWK }>
    }
    const tokens = Object.values(stored.tokens)[0]!
    expect(tokens.token_type.toLowerCase()).toBe('dpop')
    const privateJwk = stored.dpopKeys[origin]!.privateJwk
    const { d: _d, ...publicJwk } = privateJwk
    expect(decodeJwt(tokens.access_token)['cnf']).toEqual({ jkt: await calculateJwkThumbprint(publicJwk, 'sha256') })
    stolen = tokens.access_token
    ownerKey = { privateKey: (await importJWK(privateJwk, 'ES256')) as CryptoKey, jwk: publicJwk }
  })

  it('the official SDK v2 client logs in with its DPoP support and calls a tool', async () => {
    const session = await DpopSession.create()
    const provider = new MemoryProvider({ redirectUri: REDIRECT_URI, clientName: 'sdk v2 dpop e2e', dpop: session })
    const client = new Client({ name: 'sdk-v2-dpop', version: '2.4.0' })
    const first = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider })
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
    const { callback } = await formLogin(provider.authorizationUrls[0]!, { username: 'demo', password: PASSWORD, redirectUri: REDIRECT_URI })
    await first.finishAuth(callback.searchParams)
    expect(provider.tokens()?.token_type.toLowerCase()).toBe('dpop')
    const second = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider })
    try {
      await client.connect(second)
      const result = await client.callTool({ name: 'whoami', arguments: {} })
      expect(JSON.stringify(result.content)).toContain('demo')
    } finally {
      await client.close()
    }
  })

  it('refuses the stolen token as Bearer, with another key, and without the nonce', async () => {
    const asBearer = await post({ authorization: `Bearer ${stolen}` })
    expect(asBearer.status).toBe(401)
    expect(asBearer.challenge).toMatch(/^DPoP error="invalid_token"/)

    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const thief = { privateKey, jwk: await exportJWK(publicKey) }
    // without the nonce, even with the owner's key: asked for it
    const noNonce = await post({ authorization: `DPoP ${stolen}`, dpop: await proof(ownerKey, { ath: accessTokenHash(stolen) }) })
    expect(noNonce.status).toBe(401)
    expect(noNonce.challenge).toContain('error="use_dpop_nonce"')
    expect(noNonce.nonce).toEqual(expect.any(String))
    const otherKey = await post({ authorization: `DPoP ${stolen}`, dpop: await proof(thief, { ath: accessTokenHash(stolen), nonce: noNonce.nonce }) })
    expect(otherKey.status).toBe(401)
    expect(otherKey.challenge).toMatch(/^DPoP error="invalid_dpop_proof", error_description="the DPoP proof is signed with another key/)
  })

  it("refuses a replayed proof, a wrong htu or htm and a stale iat, even made with the owner's key", async () => {
    const nonce = (await post({ authorization: `DPoP ${stolen}`, dpop: await proof(ownerKey, { ath: accessTokenHash(stolen) }) })).nonce!
    const good = await proof(ownerKey, { ath: accessTokenHash(stolen), nonce })
    expect((await post({ authorization: `DPoP ${stolen}`, dpop: good })).status).toBe(200)
    const replay = await post({ authorization: `DPoP ${stolen}`, dpop: good })
    expect(replay.status).toBe(401)
    expect(replay.challenge).toContain('already used (jti)')
    for (const [claims, says] of [
      [{ htu: `${origin}/sse` }, '(htu)'],
      [{ htm: 'GET' }, '(htm)'],
      [{ iat: Math.floor(Date.now() / 1000) - 600 }, '(iat)'],
    ] as const) {
      const answer = await post({ authorization: `DPoP ${stolen}`, dpop: await proof(ownerKey, { ath: accessTokenHash(stolen), nonce, ...claims }) })
      expect(answer.status, says).toBe(401)
      expect(answer.challenge, says).toContain(`error="invalid_dpop_proof"`)
      expect(answer.challenge, says).toContain(says)
    }
  })
})
