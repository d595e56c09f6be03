/**
 * DNS-rebinding defence over real HTTP: every request's Host and Origin are checked before
 * anything else happens. fetch may not set Host, so those requests go through node:http.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning
 */
import { afterEach, describe, expect, it } from 'vitest'
import { ACCEPT_BOTH, closeAll, errorBody, get, initialize, post, rawRequest, request, startHandler } from './http-harness.js'

afterEach(closeAll)

const initializeBody = JSON.stringify(request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'http-test', version: '1.0.0' } }))
const postHeaders = { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH }

describe('Origin', () => {
  it('refuses a foreign Origin with 403 and creates no session', async () => {
    const { url, handler } = await startHandler({ preferJsonResponse: true })
    const response = await post(url, initializeBody, { headers: { Origin: 'https://evil.example' } })
    expect(response.status).toBe(403)
    expect((await errorBody(response)).error.message).toMatch(/Origin/)
    expect(response.headers.get('mcp-session-id')).toBeNull()
    expect(handler.sessionCount).toBe(0)
  })

  it('refuses a foreign Origin on GET and DELETE of a live session too', async () => {
    const { url } = await startHandler()
    const session = await initialize(url)
    const headers = { 'Mcp-Session-Id': session.id, Origin: 'http://attacker.test:8080' }
    expect((await get(url, { ...session.options, headers: { Origin: 'http://attacker.test:8080' } })).status).toBe(403)
    expect((await fetch(url, { method: 'DELETE', headers })).status).toBe(403)
    // the session survived the attempt
    expect((await session.call(1, 'ping')).result).toEqual({})
  })

  it('refuses the opaque Origin "null" with 403', async () => {
    const { url } = await startHandler()
    expect((await post(url, initializeBody, { headers: { Origin: 'null' } })).status).toBe(403)
  })

  it('accepts an Origin on an allowed host by default (a local web client)', async () => {
    const { url, port } = await startHandler({ preferJsonResponse: true })
    const response = await post(url, initializeBody, { headers: { Origin: `http://localhost:${port}` } })
    expect(response.status).toBe(200)
  })

  it('refuses an Origin whose host merely starts with an allowed name', async () => {
    const { url } = await startHandler()
    expect((await post(url, initializeBody, { headers: { Origin: 'http://127.0.0.1.evil.example' } })).status).toBe(403)
    expect((await post(url, initializeBody, { headers: { Origin: 'http://localhost.evil.example:3000' } })).status).toBe(403)
  })

  it('accepts exactly the allowedOrigins when they are given', async () => {
    const { url, port } = await startHandler({ preferJsonResponse: true, allowedOrigins: ['https://app.example'] })
    expect((await post(url, initializeBody, { headers: { Origin: 'https://app.example' } })).status).toBe(200)
    expect((await post(url, initializeBody, { headers: { Origin: 'https://other.example' } })).status).toBe(403)
    // an explicit list replaces the default rule, even for loopback origins
    expect((await post(url, initializeBody, { headers: { Origin: `http://127.0.0.1:${port}` } })).status).toBe(403)
  })

  it('passes requests without Origin (clients that are not browsers)', async () => {
    const { port } = await startHandler({ preferJsonResponse: true })
    const response = await rawRequest(port, { method: 'POST', headers: { ...postHeaders, Host: `127.0.0.1:${port}` }, body: initializeBody })
    expect(response.status).toBe(200)
    expect(response.headers['mcp-session-id']).toBeDefined()
  })
})

describe('Host', () => {
  it('refuses a Host outside the allow-list with 403', async () => {
    const { port, handler } = await startHandler()
    const response = await rawRequest(port, { method: 'POST', headers: { ...postHeaders, Host: `evil.example:${port}` }, body: initializeBody })
    expect(response.status).toBe(403)
    expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: expect.stringMatching(/Host/) } })
    expect(handler.sessionCount).toBe(0)
  })

  it('refuses a foreign Host on GET even without a session', async () => {
    const { port } = await startHandler()
    const response = await rawRequest(port, { method: 'GET', headers: { Accept: 'text/event-stream', Host: 'rebound.example' } })
    expect(response.status).toBe(403)
  })

  it('accepts every allowed host name, with or without a port', async () => {
    const { port } = await startHandler({ preferJsonResponse: true })
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost']) {
      const response = await rawRequest(port, { method: 'POST', headers: { ...postHeaders, Host: host }, body: initializeBody })
      expect(response.status, host).toBe(200)
    }
  })

  it('uses the configured allowedHosts instead of loopback names', async () => {
    const { port } = await startHandler({ preferJsonResponse: true, allowedHosts: ['mcp.internal'] })
    const allowed = await rawRequest(port, { method: 'POST', headers: { ...postHeaders, Host: 'mcp.internal' }, body: initializeBody })
    expect(allowed.status).toBe(200)
    const loopback = await rawRequest(port, { method: 'POST', headers: { ...postHeaders, Host: `127.0.0.1:${port}` }, body: initializeBody })
    expect(loopback.status).toBe(403)
  })
})
