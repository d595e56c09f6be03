/**
 * Issue 17: DPoP (RFC 9449) at the resource server, over real HTTP in front of the demo MCP
 * server: a bound token works only with a fresh proof of its key for this request, and every way
 * a thief could use it otherwise is refused with the challenge RFC 9449 §7.1 defines.
 */
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accessTokenHash } from '../../../src/auth/resource/dpop-proof.js'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

interface ClientKey {
  privateKey: CryptoKey
  jwk: JWK
  jkt: string
  alg?: string
}

async function clientKey(alg = 'ES256'): Promise<ClientKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  const jwk = await exportJWK(publicKey)
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256'), alg }
}

/** A proof as a client makes one; every claim can be changed. */
function proof(key: ClientKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: key.alg ?? 'ES256', typ: 'dpop+jwt', jwk: key.jwk, ...header })
    .sign(key.privateKey)
}

let signingKey: CryptoKey | Uint8Array
let signingKid: string

async function keysOf(stack: ProtectedStack): Promise<void> {
  const jwks = JSON.parse(await readFile(join(stack.dataDir, 'jwks.json'), 'utf8')) as { current: Array<JWK & { kid: string; alg: string }> }
  const es256 = jwks.current.find((key) => key.alg === 'ES256')!
  signingKey = await importJWK(es256, 'ES256')
  signingKid = es256.kid
}

/** An access token from the authorization server's own key, bound to `jkt` (or not). */
function accessToken(stack: ProtectedStack, jkt: string | undefined, scope = 'mcp'): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ client_id: 'dpop-client', scope, ...(jkt !== undefined ? { cnf: { jkt } } : {}) })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signingKid })
    .setIssuer(stack.as.issuer)
    .setAudience(stack.resource)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .setSubject('someone')
    .sign(signingKey)
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'dpop-test', version: '1' } } }

async function post(stack: ProtectedStack, headers: Record<string, string>, message: unknown = INITIALIZE, path = '/mcp') {
  const response = await fetch(`${stack.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
    body: JSON.stringify(message),
  })
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '', nonce: response.headers.get('dpop-nonce'), text: await response.text() }
}

/** Headers of a DPoP request for `token` with a proof of `key` for POST /mcp, claims changed as given. */
async function dpopHeaders(stack: ProtectedStack, key: ClientKey, token: string, claims: Record<string, unknown> = {}): Promise<Record<string, string>> {
  return { authorization: `DPoP ${token}`, dpop: await proof(key, { htm: 'POST', htu: `${stack.origin}/mcp`, ath: accessTokenHash(token), ...claims }) }
}

describe('DPoP at the resource server (accepted by default, Bearer still works)', () => {
  let stack: ProtectedStack
  let key: ClientKey
  let bound: string

  beforeAll(async () => {
    stack = await startProtectedStack()
    await keysOf(stack)
    key = await clientKey()
    bound = await accessToken(stack, key.jkt)
  })
  afterAll(() => stack.stop())

  it('accepts a bound token with a fresh proof of its key for this request, and an unbound token as Bearer', async () => {
    const answer = await post(stack, await dpopHeaders(stack, key, bound))
    expect(answer.status).toBe(200)
    expect(answer.text).toContain('"protocolVersion":"2025-11-25"')
    expect((await post(stack, { authorization: `Bearer ${await accessToken(stack, undefined)}` })).status).toBe(200)
  })

  it('advertises the proof algorithms in its protected resource metadata, without requiring DPoP', async () => {
    const metadata = (await (await fetch(`${stack.origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>
    expect(metadata['dpop_signing_alg_values_supported']).toContain('ES256')
    expect(metadata['dpop_signing_alg_values_supported']).not.toContain('HS256')
    expect(metadata['dpop_bound_access_tokens_required']).toBeUndefined()
  })

  it('refuses a bound token presented as Bearer, with a DPoP challenge', async () => {
    const answer = await post(stack, { authorization: `Bearer ${bound}` })
    expect(answer.status).toBe(401)
    expect(answer.challenge).toMatch(
      /^DPoP error="invalid_token", error_description="a DPoP-bound access token must be sent with the DPoP scheme and a proof", algs="ES256 [^"]*", resource_metadata="/,
    )
    // also with a valid proof beside it: the scheme is what binds
    expect((await post(stack, { ...(await dpopHeaders(stack, key, bound)), authorization: `Bearer ${bound}` })).status).toBe(401)
  })

  it('refuses a proof made with another key than the one the token is bound to', async () => {
    const thief = await clientKey()
    const answer = await post(stack, await dpopHeaders(stack, thief, bound))
    expect(answer.status).toBe(401)
    expect(answer.challenge).toContain('DPoP error="invalid_dpop_proof", error_description="the DPoP proof is signed with another key than the one the access token is bound to"')
  })

  it('refuses a proof used twice', async () => {
    const headers = await dpopHeaders(stack, key, bound)
    expect((await post(stack, headers)).status).toBe(200)
    const replay = await post(stack, headers)
    expect(replay.status).toBe(401)
    expect(replay.challenge).toContain('error="invalid_dpop_proof", error_description="the DPoP proof was already used (jti): make a new proof for every request"')
  })

  it('refuses a proof for another URI or another method', async () => {
    const otherPath = await post(stack, await dpopHeaders(stack, key, bound, { htu: `${stack.origin}/other` }))
    expect(otherPath.status).toBe(401)
    expect(otherPath.challenge).toContain('(htu)')
    const otherHost = await post(stack, await dpopHeaders(stack, key, bound, { htu: 'https://mcp.example.com/mcp' }))
    expect(otherHost.challenge).toContain('(htu)')
    const otherMethod = await post(stack, await dpopHeaders(stack, key, bound, { htm: 'GET' }))
    expect(otherMethod.status).toBe(401)
    expect(otherMethod.challenge).toContain('(htm)')
  })

  it('compares htu as RFC 9449 says: without query and fragment, scheme and host normalised', async () => {
    const port = new URL(stack.origin).port
    const answer = await post(stack, await dpopHeaders(stack, key, bound, { htu: `HTTP://127.0.0.1:${port}/mcp?session=1#x` }))
    expect(answer.status).toBe(200)
  })

  it('refuses a proof whose iat is outside the window, in the past or the future', async () => {
    const now = Math.floor(Date.now() / 1000)
    for (const iat of [now - 300, now + 300]) {
      const answer = await post(stack, await dpopHeaders(stack, key, bound, { iat }))
      expect(answer.status).toBe(401)
      expect(answer.challenge).toContain('(iat)')
    }
  })

  it('refuses a proof that does not cover the token presented (ath)', async () => {
    const other = await accessToken(stack, key.jkt, 'mcp mcp:admin')
    const wrong = await post(stack, await dpopHeaders(stack, key, bound, { ath: accessTokenHash(other) }))
    expect(wrong.status).toBe(401)
    expect(wrong.challenge).toContain('(ath)')
    const missing = await post(stack, await dpopHeaders(stack, key, bound, { ath: undefined }))
    expect(missing.challenge).toContain('(ath)')
  })

  it('refuses a request without a proof, with two proofs, or with a malformed one', async () => {
    const none = await post(stack, { authorization: `DPoP ${bound}` })
    expect(none.status).toBe(401)
    expect(none.challenge).toContain('error="invalid_dpop_proof", error_description="a DPoP-bound access token needs a DPoP proof in the DPoP header"')
    const one = (await dpopHeaders(stack, key, bound)).dpop!
    const two = await post(stack, { authorization: `DPoP ${bound}`, dpop: `${one}, ${(await dpopHeaders(stack, key, bound)).dpop}` })
    expect(two.challenge).toContain('exactly one DPoP header')
    expect((await post(stack, { authorization: `DPoP ${bound}`, dpop: 'not-a-jwt' })).challenge).toContain('not a JWT')
  })

  it('refuses a proof with the wrong typ, an HMAC algorithm, or a private key in its header', async () => {
    const wrongTyp = await post(stack, {
      authorization: `DPoP ${bound}`,
      dpop: await proof(key, { htm: 'POST', htu: `${stack.origin}/mcp`, ath: accessTokenHash(bound) }, { typ: 'JWT' }),
    })
    expect(wrongTyp.challenge).toContain('typ dpop+jwt')
    const hmac = await new SignJWT({ jti: randomUUID(), iat: Math.floor(Date.now() / 1000), htm: 'POST', htu: `${stack.origin}/mcp`, ath: accessTokenHash(bound) })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0' } as JWK })
      .sign(new TextEncoder().encode('secretsecretsecretsecretsecret'))
    expect((await post(stack, { authorization: `DPoP ${bound}`, dpop: hmac })).challenge).toContain('algorithm this server does not accept')
    const { privateKey } = await generateKeyPair('ES256', { extractable: true })
    const privateJwk = await exportJWK(privateKey)
    const leaky = await post(stack, {
      authorization: `DPoP ${bound}`,
      dpop: await proof({ ...key, privateKey, jwk: privateJwk }, { htm: 'POST', htu: `${stack.origin}/mcp`, ath: accessTokenHash(bound) }),
    })
    expect(leaky.status).toBe(401)
    expect(leaky.challenge).toContain('public jwk')
  })

  it('refuses a proof whose jwk kty names a member of every object (constructor, __proto__) with 401, not a server error', async () => {
    for (const kty of ['constructor', '__proto__', 'toString']) {
      const odd = await post(stack, {
        authorization: `DPoP ${bound}`,
        dpop: await proof(key, { htm: 'POST', htu: `${stack.origin}/mcp`, ath: accessTokenHash(bound) }, { jwk: { ...key.jwk, kty } }),
      })
      expect(odd.status, kty).toBe(401)
      expect(odd.challenge, kty).toContain('public jwk')
    }
  })

  it('verifies proofs of every algorithm family it lists (ES384, ES512, PS256, RS256, EdDSA)', async () => {
    for (const alg of ['ES384', 'ES512', 'PS256', 'RS256', 'EdDSA']) {
      const other = await clientKey(alg)
      const token = await accessToken(stack, other.jkt)
      expect((await post(stack, await dpopHeaders(stack, other, token))).status, alg).toBe(200)
      // the same key and claims, the signature of another proof: refused
      const [h, p] = (await dpopHeaders(stack, other, token)).dpop!.split('.')
      const s = (await dpopHeaders(stack, other, token)).dpop!.split('.')[2]
      const forged = await post(stack, { authorization: `DPoP ${token}`, dpop: `${h}.${p}.${s}` })
      expect(forged.challenge, alg).toContain('signature is invalid')
    }
  })

  it('accepts a P-384 key with ES384 and refuses it under ES256', async () => {
    const p384 = await clientKey('ES384')
    const token = await accessToken(stack, p384.jkt)
    const fitting = await post(stack, {
      authorization: `DPoP ${token}`,
      dpop: await proof(p384, { htm: 'POST', htu: `${stack.origin}/mcp`, ath: accessTokenHash(token) }, { alg: 'ES384', jwk: p384.jwk }),
    })
    expect(fitting.status).toBe(200)
    const es256Header = await post(stack, {
      authorization: `DPoP ${token}`,
      // signed by the P-384 key but claiming ES256: the key is not of the algorithm's curve
      dpop: (await proof(p384, { htm: 'POST', htu: `${stack.origin}/mcp`, ath: accessTokenHash(token) }, { alg: 'ES384' })).replace(
        /^[^.]+/,
        Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'dpop+jwt', jwk: p384.jwk })).toString('base64url'),
      ),
    })
    expect(es256Header.challenge).toContain('does not fit its algorithm')
  })

  it('refuses an unbound token sent with the DPoP scheme', async () => {
    const unbound = await accessToken(stack, undefined)
    const answer = await post(stack, await dpopHeaders(stack, key, unbound))
    expect(answer.status).toBe(401)
    expect(answer.challenge).toContain('DPoP error="invalid_token", error_description="the access token is not DPoP-bound')
  })

  it('answers a missing scope of a DPoP request with 403 and a DPoP challenge', async () => {
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'admin_stats', arguments: {} } }
    const answer = await post(stack, await dpopHeaders(stack, key, bound), call)
    expect(answer.status).toBe(403)
    expect(answer.challenge).toMatch(/^DPoP error="insufficient_scope", .*scope="mcp mcp:admin"/)
  })
})

describe('DPoP required, with server nonces', () => {
  let stack: ProtectedStack
  let key: ClientKey
  let bound: string

  beforeAll(async () => {
    stack = await startProtectedStack({ mcp: { requireDpop: true, dpop: { nonces: true } } })
    await keysOf(stack)
    key = await clientKey()
    bound = await accessToken(stack, key.jkt)
  })
  afterAll(() => stack.stop())

  it('says in its metadata that only bound tokens are accepted, and challenges a request without a token with DPoP', async () => {
    const metadata = (await (await fetch(`${stack.origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>
    expect(metadata['dpop_bound_access_tokens_required']).toBe(true)
    const answer = await post(stack, {})
    expect(answer.status).toBe(401)
    expect(answer.challenge).toMatch(/^DPoP algs="ES256 [^"]*", resource_metadata="[^"]+", scope="mcp"$/)
  })

  it('refuses a Bearer token, however valid', async () => {
    const answer = await post(stack, { authorization: `Bearer ${await accessToken(stack, undefined)}` })
    expect(answer.status).toBe(401)
    expect(answer.challenge).toContain('DPoP error="invalid_token", error_description="this resource accepts DPoP-bound access tokens only')
  })

  it('asks for its nonce with use_dpop_nonce and DPoP-Nonce, then accepts the proof that carries it', async () => {
    const first = await post(stack, await dpopHeaders(stack, key, bound))
    expect(first.status).toBe(401)
    expect(first.challenge).toContain('DPoP error="use_dpop_nonce"')
    expect(first.nonce).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]+$/)
    const retry = await post(stack, await dpopHeaders(stack, key, bound, { nonce: first.nonce }))
    expect(retry.status).toBe(200)
    const forged = await post(stack, await dpopHeaders(stack, key, bound, { nonce: `${first.nonce!.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAAAA` }))
    expect(forged.status).toBe(401)
    expect(forged.challenge).toContain('error="use_dpop_nonce", error_description="the DPoP nonce is unknown or has expired"')
  })
})
