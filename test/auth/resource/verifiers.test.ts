import { afterEach, describe, expect, it } from 'vitest'
import * as oidc from 'openid-client'
import { createJwtVerifier } from '../../../src/auth/resource/jwt-verifier.js'
import { createIntrospectionVerifier } from '../../../src/auth/resource/introspection-verifier.js'
import { rotateSigningKeys } from '../../../src/auth/server/keys/signing-keys.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { freePort } from '../../helpers/free-port.js'

const servers: RunningAuthServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop(true)))
})

async function machineClient(s: RunningAuthServer) {
  const added = await s.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' })
  const server = (await oidc.discovery(new URL(s.issuer), added.client_id, undefined, undefined, { execute: [oidc.allowInsecureRequests] })).serverMetadata()
  const config = new oidc.Configuration(server, added.client_id, {}, oidc.ClientSecretBasic(added.client_secret!))
  oidc.allowInsecureRequests(config)
  return { ...added, config }
}

describe('createIntrospectionVerifier', () => {
  it('accepts an active opaque token and refuses it once revoked at the authorization server', async () => {
    const port = await freePort()
    const resource = `http://127.0.0.1:${port}/mcp`
    const s = await startAuthServer({ port, resources: [{ uri: resource, scopes: ['mcp'], tokenFormat: 'opaque' }] })
    servers.push(s)
    const caller = await machineClient(s)
    const introspector = await machineClient(s)
    const { access_token } = await oidc.clientCredentialsGrant(caller.config, { scope: 'mcp', resource })
    expect(access_token.split('.')).toHaveLength(1)
    const verifier = createIntrospectionVerifier({
      endpoint: `${s.issuer}/token/introspection`,
      clientId: introspector.client_id,
      clientSecret: introspector.client_secret!,
      audience: resource,
      issuer: s.issuer,
      cacheMs: 0,
    })
    const info = await verifier.verify(access_token)
    expect(info).toMatchObject({ clientId: caller.client_id, scopes: ['mcp'] })
    await oidc.tokenRevocation(caller.config, access_token)
    await expect(verifier.verify(access_token)).rejects.toMatchObject({ error: 'invalid_token', status: 401 })
  })

  it('refuses an active token for another resource', async () => {
    const port = await freePort()
    const s = await startAuthServer({
      port,
      resources: [
        { uri: `http://127.0.0.1:${port}/mcp`, tokenFormat: 'opaque' },
        { uri: `http://127.0.0.1:${port}/other`, tokenFormat: 'opaque' },
      ],
    })
    servers.push(s)
    const caller = await machineClient(s)
    const { access_token } = await oidc.clientCredentialsGrant(caller.config, { scope: 'mcp', resource: `http://127.0.0.1:${port}/other` })
    const verifier = createIntrospectionVerifier({
      endpoint: `${s.issuer}/token/introspection`,
      clientId: caller.client_id,
      clientSecret: caller.client_secret!,
      audience: `http://127.0.0.1:${port}/mcp`,
    })
    await expect(verifier.verify(access_token)).rejects.toThrow(/another resource/)
  })

  it('reports an unreachable authorization server as 503 temporarily_unavailable, not as a bad token', async () => {
    const verifier = createIntrospectionVerifier({
      endpoint: `http://127.0.0.1:${await freePort()}/introspect`,
      clientId: 'x',
      clientSecret: 'y',
      audience: 'http://127.0.0.1/mcp',
    })
    await expect(verifier.verify('opaque-token')).rejects.toMatchObject({ error: 'temporarily_unavailable', status: 503 })
  })

  it('caches a result no longer than the token lives', async () => {
    let calls = 0
    let clock = 1_000_000_000_000
    const exp = Math.floor(clock / 1000) + 10
    const fetchStub = (async () => {
      calls += 1
      return Response.json({ active: true, aud: 'https://mcp.example.com/mcp', exp, client_id: 'c', scope: 'mcp' })
    }) as typeof fetch
    const verifier = createIntrospectionVerifier({
      endpoint: 'https://as.example/introspect',
      clientId: 'x',
      clientSecret: 'y',
      audience: 'https://mcp.example.com/mcp',
      fetch: fetchStub,
      now: () => clock,
      cacheMs: 60_000,
    })
    await verifier.verify('t')
    await verifier.verify('t')
    expect(calls).toBe(1)
    clock += 16_000 // past exp plus the clock tolerance
    await expect(verifier.verify('t')).rejects.toThrow(/expired/)
    expect(calls).toBe(2)
  })
})

describe('createJwtVerifier', () => {
  it('follows a key rotation: refetches the JWKS on an unknown kid and still accepts tokens signed before', async () => {
    const port = await freePort()
    const resource = `http://127.0.0.1:${port}/mcp`
    const first = await startAuthServer({ port, resources: [{ uri: resource }] })
    const caller = await machineClient(first)
    const before = (await oidc.clientCredentialsGrant(caller.config, { scope: 'mcp' })).access_token
    const verifier = createJwtVerifier({ issuer: first.issuer, audience: resource, jwksUri: `${first.issuer}/jwks`, cooldownMs: 0 })
    await verifier.warm()
    expect((await verifier.verify(before)).clientId).toBe(caller.client_id)
    await first.stop()
    await rotateSigningKeys(first.dataDir)
    const second = await startAuthServer({ port, dataDir: first.dataDir, resources: [{ uri: resource }] })
    servers.push(second)
    const server = (await oidc.discovery(new URL(second.issuer), caller.client_id, undefined, undefined, { execute: [oidc.allowInsecureRequests] })).serverMetadata()
    const config = new oidc.Configuration(server, caller.client_id, {}, oidc.ClientSecretBasic(caller.client_secret!))
    oidc.allowInsecureRequests(config)
    const after = (await oidc.clientCredentialsGrant(config, { scope: 'mcp' })).access_token
    expect((await verifier.verify(after)).clientId).toBe(caller.client_id)
    expect((await verifier.verify(before)).clientId).toBe(caller.client_id)
  })

  it('does not fetch the keys per request once they are cached', async () => {
    const port = await freePort()
    const resource = `http://127.0.0.1:${port}/mcp`
    const s = await startAuthServer({ port, resources: [{ uri: resource }] })
    servers.push(s)
    // A counting proxy in front of the JWKS.
    let jwksFetches = 0
    const { createServer: createHttpServer } = await import('node:http')
    const proxy = createHttpServer(async (_req, res) => {
      jwksFetches += 1
      const upstream = await fetch(`${s.issuer}/jwks`)
      res.writeHead(200, { 'content-type': 'application/json' }).end(await upstream.text())
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    try {
      const caller = await machineClient(s)
      const token = (await oidc.clientCredentialsGrant(caller.config, { scope: 'mcp' })).access_token
      const verifier = createJwtVerifier({ issuer: s.issuer, audience: resource, jwksUri: `http://127.0.0.1:${(proxy.address() as { port: number }).port}/jwks` })
      for (let i = 0; i < 20; i++) await verifier.verify(token)
      expect(jwksFetches).toBe(1)
    } finally {
      proxy.closeAllConnections()
      await new Promise((resolve) => proxy.close(resolve))
    }
  })
})
