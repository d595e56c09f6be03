/**
 * Issue 28, item 2: one server, several endpoints. `BearerAuth.withResourceMetadataUrl` gives an
 * endpoint its own challenges (naming its own metadata) while it keeps the one check: the same
 * verifier and the same DPoP settings, so a server nonce handed out at one endpoint is good at all.
 */
import { randomUUID } from 'node:crypto'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { BearerAuth } from '../../../src/auth/resource/bearer-auth.js'
import { accessTokenHash } from '../../../src/auth/resource/dpop-proof.js'
import { createJwtVerifier } from '../../../src/auth/resource/jwt-verifier.js'

const ORIGIN = 'https://mcp.example.com'
const ISSUER = 'https://auth.example.com'
const metadataOf = (path: string) => `${ORIGIN}/.well-known/oauth-protected-resource${path}`

describe('BearerAuth.withResourceMetadataUrl', () => {
  it("challenges with the endpoint's own metadata and shares the DPoP nonces of the original", async () => {
    const issuerKey = await generateKeyPair('ES256')
    const clientKey = await generateKeyPair('ES256', { extractable: true })
    const clientJwk = await exportJWK(clientKey.publicKey)
    const jkt = await calculateJwkThumbprint(clientJwk, 'sha256')
    const verifier = createJwtVerifier({
      issuer: ISSUER,
      audience: [`${ORIGIN}/mcp`, `${ORIGIN}/sse`],
      jwks: { keys: [{ ...(await exportJWK(issuerKey.publicKey)), kid: 'k1', alg: 'ES256' }] },
    })
    const mcp = new BearerAuth({ verifier, resourceMetadataUrl: metadataOf('/mcp'), dpop: { nonces: true } })
    const sse = mcp.withResourceMetadataUrl(metadataOf('/sse'))
    const now = Math.floor(Date.now() / 1000)
    const token = await new SignJWT({ client_id: 'c', scope: 'mcp', cnf: { jkt } })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(`${ORIGIN}/sse`)
      .setSubject('someone')
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(issuerKey.privateKey)
    const request = async (path: string, nonce?: string) => ({
      method: 'POST',
      url: new URL(`${ORIGIN}${path}`),
      headers: {
        authorization: `DPoP ${token}`,
        dpop: await new SignJWT({
          jti: randomUUID(),
          iat: Math.floor(Date.now() / 1000),
          htm: 'POST',
          htu: `${ORIGIN}${path}`,
          ath: accessTokenHash(token),
          ...(nonce ? { nonce } : {}),
        })
          .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: clientJwk })
          .sign(clientKey.privateKey),
      },
    })

    const refused = await sse.authenticate(await request('/sse')).then(
      () => undefined,
      (error: unknown) => sse.errorResponse(error),
    )
    expect(refused?.status).toBe(401)
    expect(refused?.headers['www-authenticate']).toContain('error="use_dpop_nonce"')
    expect(refused?.headers['www-authenticate']).toContain(`resource_metadata="${metadataOf('/sse')}"`)
    const nonce = refused?.headers['dpop-nonce']
    expect(nonce).toBeTruthy()
    // the nonce /sse handed out is good at /mcp, and the original still names its own metadata
    expect((await mcp.authenticate(await request('/mcp', nonce))).subject).toBe('someone')
    const missing = await mcp.authenticate({ method: 'POST', url: new URL(`${ORIGIN}/mcp`), headers: {} }).then(
      () => undefined,
      (error: unknown) => mcp.errorResponse(error),
    )
    expect(missing?.headers['www-authenticate']).toContain(`resource_metadata="${metadataOf('/mcp')}"`)
    expect(sse.dpopMetadata).toEqual(mcp.dpopMetadata)
  })
})
