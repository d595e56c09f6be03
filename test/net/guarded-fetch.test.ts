// Issue 13, item 15: outbound fetches to client-chosen URLs resolve first, refuse special-use
// addresses before any TCP connection, connect to the checked address, and keep one time budget.
import { createServer as createHttpServer } from 'node:http'
import { createServer, type Server } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { guardedFetch, OutboundAddressError, ResponseTooLargeError } from '../../src/net/guarded-fetch.js'
import { startAuthServer } from '../helpers/auth-server.js'

let listener: Server
let port: number
let connections = 0
const sockets = new Set<import('node:net').Socket>()

beforeAll(async () => {
  // Accepts connections and never answers: counts every TCP handshake that reaches it.
  listener = createServer((socket) => {
    connections += 1
    sockets.add(socket)
    socket.on('error', () => undefined)
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  port = (listener.address() as AddressInfo).port
})
afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await new Promise<void>((resolve) => listener.close(() => resolve()))
})

describe('guardedFetch', () => {
  it('refuses loopback targets in every spelling without connecting', async () => {
    const before = connections
    for (const host of ['127.0.0.1', 'localhost', '2130706433', '0x7f000001', '127.1', '[::1]', '[::ffff:127.0.0.1]']) {
      await expect(guardedFetch(`https://${host}:${port}/doc.json`, {}, { timeoutMs: 2_000, allowPrivateAddresses: false, maxBytes: 1024 }), host).rejects.toBeInstanceOf(
        OutboundAddressError,
      )
    }
    expect(connections).toBe(before)
  })

  it('gives up on a target that accepts and never answers within its one budget', async () => {
    const began = Date.now()
    await expect(guardedFetch(`https://127.0.0.1:${port}/slow`, {}, { timeoutMs: 400, allowPrivateAddresses: true, maxBytes: 1024 })).rejects.toThrow()
    expect(Date.now() - began).toBeLessThan(1_500)
  })
})

describe('the authorization server fetching what clients point it at', () => {
  it('never connects to a loopback client ID metadata document or jwks_uri', async () => {
    const s = await startAuthServer()
    try {
      const before = connections
      const clientId = `https://localhost:${port}/client.json`
      const authorize = await fetch(
        `${s.origin}/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: 'http://localhost/cb', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', scope: 'mcp' })}`,
        { redirect: 'manual' },
      )
      expect(authorize.status).toBeGreaterThanOrEqual(400)
      const registered = await fetch(`${s.origin}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: [],
          response_types: [],
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks_uri: `https://127.0.0.1:${port}/jwks`,
        }),
      })
      const { client_id } = (await registered.json()) as { client_id: string }
      const assertion = `${Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'x' })).toString('base64url')}.${Buffer.from(JSON.stringify({ iss: client_id, sub: client_id, aud: s.issuer, exp: Math.floor(Date.now() / 1000) + 60, jti: 'j1' })).toString('base64url')}.c2ln`
      const token = await fetch(`${s.origin}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: assertion,
        }),
      })
      expect(token.status).toBeGreaterThanOrEqual(400)
      expect(connections).toBe(before)
    } finally {
      await s.stop(true)
    }
  })

  it('answers within the documented budget when a document host never answers (development setting)', async () => {
    const s = await startAuthServer({ clientIdMetadataDocuments: { allowPrivateAddresses: true } })
    try {
      const began = Date.now()
      const response = await fetch(
        `${s.origin}/authorize?${new URLSearchParams({ client_id: `https://127.0.0.1:${port}/client.json`, response_type: 'code', redirect_uri: 'http://localhost/cb', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', scope: 'mcp' })}`,
        { redirect: 'manual' },
      )
      await response.text()
      expect(response.status).toBeGreaterThanOrEqual(400)
      expect(Date.now() - began).toBeLessThan(3_500)
    } finally {
      await s.stop(true)
    }
  })

  it('cuts off a body that never ends at maxBytes and closes the connection', async () => {
    let written = 0
    let closed = false
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(16 * 1024, 0x20)
      const pump = () => {
        while (!closed && res.write(chunk)) written += chunk.length
        if (!closed) res.once('drain', pump)
      }
      res.on('close', () => (closed = true))
      pump()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port: bodyPort } = server.address() as AddressInfo
      const began = Date.now()
      const response = await guardedFetch(`http://127.0.0.1:${bodyPort}/jwks.json`, {}, { timeoutMs: 5_000, allowPrivateAddresses: true, maxBytes: 64 * 1024 })
      await expect(response.text()).rejects.toThrow(/longer than 65536 bytes/)
      // cut at the limit, not at the end of the time budget
      expect(Date.now() - began).toBeLessThan(2_000)
      await expect.poll(() => closed).toBe(true)
      // what the server managed to write before the cut: a little over the limit, not megabytes
      expect(written).toBeLessThan(4 * 1024 * 1024)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('refuses a declared Content-Length over maxBytes before reading the body', async () => {
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) })
      res.write('{')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port: bodyPort } = server.address() as AddressInfo
      await expect(guardedFetch(`http://127.0.0.1:${bodyPort}/client.json`, {}, { timeoutMs: 5_000, allowPrivateAddresses: true, maxBytes: 1024 })).rejects.toBeInstanceOf(
        ResponseTooLargeError,
      )
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
