/**
 * Issue 17: the client's DPoP pieces on their own — one key per authorization server kept in the
 * token store (the first of racing processes wins), proofs shaped as RFC 9449 §4.2 says, and a
 * resource's nonce challenge answered once — against a real local HTTP server that checks proofs
 * with our resource-server code.
 */
import { createServer } from 'node:http'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DpopKey, fetchWithDpop, generateDpopKey } from '../../../src/auth/client/dpop.js'
import { FileTokenStore } from '../../../src/auth/client/token-store.js'
import { accessTokenHash, verifyDpopProof } from '../../../src/auth/resource/dpop-proof.js'
import { DpopNonces } from '../../../src/auth/resource/dpop-nonces.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-dpop-client-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('the DPoP key in the token store', () => {
  it('is made once per issuer and kept in the 0600 file; racing stores on one file end with one key', async () => {
    const file = join(dir, 'keys', 'tokens.json')
    const [a, b] = await Promise.all([
      new FileTokenStore(file).dpopKey('https://as.example', () => generateDpopKey()),
      new FileTokenStore(file).dpopKey('https://as.example', () => generateDpopKey()),
    ])
    expect(a).toEqual(b)
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    const again = await new FileTokenStore(file).dpopKey('https://as.example', () => Promise.reject(new Error('must not make another')))
    expect(again).toEqual(a)
    const other = await new FileTokenStore(file).dpopKey('https://other.example', () => generateDpopKey())
    expect(other.privateJwk.d).not.toBe(a.privateJwk.d)
  })
})

describe('DpopKey proofs', () => {
  it('carry a public jwk, htm, htu without query or fragment, iat, a fresh jti, ath with a token, and the last nonce of the origin', async () => {
    const key = await DpopKey.load(await generateDpopKey())
    const one = await key.proof('post', 'https://mcp.example.com/mcp?x=1#f', 'token-1')
    const header = decodeProtectedHeader(one)
    expect(header).toMatchObject({ alg: 'ES256', typ: 'dpop+jwt' })
    expect((header.jwk as JWK).d).toBeUndefined()
    const claims = decodeJwt(one)
    expect(claims).toMatchObject({ htm: 'POST', htu: 'https://mcp.example.com/mcp', ath: accessTokenHash('token-1') })
    expect(claims['nonce']).toBeUndefined()
    key.observe('https://mcp.example.com/other', new Response(null, { headers: { 'dpop-nonce': 'n-1' } }))
    const two = decodeJwt(await key.proof('GET', 'https://mcp.example.com/mcp'))
    expect(two['nonce']).toBe('n-1')
    expect(two['jti']).not.toBe(claims['jti'])
    expect(two['ath']).toBeUndefined()
    // another origin's nonce is not sent
    expect(decodeJwt(await key.proof('GET', 'https://as.example.com/token'))['nonce']).toBeUndefined()
  })
})

describe('fetchWithDpop', () => {
  it("answers a resource's use_dpop_nonce once, with the nonce, and the proof verifies", async () => {
    const nonces = new DpopNonces()
    const seen: Array<{ nonce: string | undefined; jkt: string }> = []
    const server = createServer(async (req, res) => {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const proof = await verifyDpopProof({
        proof: req.headers['dpop'],
        method: req.method!,
        url: `${origin}${req.url}`,
        accessToken: 'the-token',
        algorithms: ['ES256'],
        iatWindowSeconds: 60,
        now: Date.now(),
      })
      seen.push({ nonce: proof.nonce, jkt: proof.jkt })
      if (nonces.check(proof.nonce) === false) {
        res.writeHead(401, { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': nonces.current() }).end()
        return
      }
      res.writeHead(200).end(req.headers.authorization)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
      const stored = await generateDpopKey()
      const key = await DpopKey.load(stored)
      const response = await fetchWithDpop(fetch, url, { method: 'POST', body: '{}' }, 'the-token', key)
      expect(response.status).toBe(200)
      expect(await response.text()).toBe('DPoP the-token')
      expect(seen.map((s) => s.nonce)).toEqual([undefined, nonces.current()])
      const { d: _d, ...publicJwk } = stored.privateJwk
      expect(seen[0]!.jkt).toBe(await calculateJwkThumbprint(publicJwk, 'sha256'))
      // the nonce is remembered: the next request needs no challenge
      expect((await fetchWithDpop(fetch, url, { method: 'POST', body: '{}' }, 'the-token', key)).status).toBe(200)
      expect(seen).toHaveLength(3)
    } finally {
      server.close()
    }
  })
})
