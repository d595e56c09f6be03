// Issue 33: our MCP client over HTTP honours Retry-After once: it waits and retries a request
// answered 429, and a second 429 is the answer, saying when to retry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SignJWT, importJWK, type JWK } from 'jose'
import { McpClient } from '../../../src/client/index.js'
import { StreamableHttpClientTransport } from '../../../src/transports/http-client/index.js'
import { retryAfterOnce } from '../../../src/transports/http-client/retry-after-once.js'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

/** A server that answers `answers[n]` to its n-th request (the last one after that), counting them. */
async function scripted(answers: Array<{ status: number; headers?: Record<string, string>; body?: string }>) {
  let count = 0
  const server: Server = createServer((req, res) => {
    const answer = answers[Math.min(count++, answers.length - 1)]!
    req.resume()
    req.on('end', () => res.writeHead(answer.status, answer.headers).end(answer.body ?? ''))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    requests: () => count,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

describe('retryAfterOnce', () => {
  it('waits the Retry-After and sends the same request once more', async () => {
    const server = await scripted([
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 200, body: 'ok' },
    ])
    try {
      const started = Date.now()
      const res = await retryAfterOnce(fetch)(server.url, { method: 'POST', body: '{"a":1}' })
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('ok')
      expect(server.requests()).toBe(2)
      expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    } finally {
      await server.close()
    }
  })

  it('returns a second 429 as the answer, and a Retry-After past its bound at once', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '1' } }])
    try {
      expect((await retryAfterOnce(fetch)(server.url)).status).toBe(429)
      expect(server.requests()).toBe(2)
      const started = Date.now()
      expect((await retryAfterOnce(fetch, 0)(server.url)).status).toBe(429)
      expect(server.requests()).toBe(3)
      expect(Date.now() - started).toBeLessThan(900)
    } finally {
      await server.close()
    }
  })

  it('stops waiting when the request is aborted', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '5' } }])
    try {
      const controller = new AbortController()
      setTimeout(() => controller.abort(new Error('gave up')), 100)
      await expect(retryAfterOnce(fetch)(server.url, { signal: controller.signal })).rejects.toThrow('gave up')
      expect(server.requests()).toBe(1)
    } finally {
      await server.close()
    }
  })
})

describe('McpClient over Streamable HTTP at a rate-limited resource', () => {
  let stack: ProtectedStack
  let bearer: string

  beforeAll(async () => {
    stack = await startProtectedStack({ mcp: { rateLimit: { requestsPerMinute: 60, burst: 4 } } })
    const jwks = JSON.parse(await readFile(join(stack.dataDir, 'jwks.json'), 'utf8')) as { current: Array<JWK & { kid: string; alg: string }> }
    const es256 = jwks.current.find((key) => key.alg === 'ES256')!
    const now = Math.floor(Date.now() / 1000)
    bearer = await new SignJWT({ client_id: 'patient-client', scope: 'mcp' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: es256.kid })
      .setIssuer(stack.as.issuer)
      .setAudience(stack.resource)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .setSubject('patient')
      .sign(await importJWK(es256, 'ES256'))
  })
  afterAll(() => stack.stop())

  it('gets its answer after one wait when a call is over the limit', async () => {
    let requests = 0
    const counted: typeof fetch = (input, init) => {
      requests++
      return fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${bearer}` } })
    }
    const client = new McpClient({ name: 'patient', version: '1' }, { protocolVersion: '2025-11-25' })
    await client.connect(new StreamableHttpClientTransport(`${stack.origin}/mcp`, { fetch: counted, openGetStream: false }))
    // initialize and initialized took 2 of the 4: two calls take the rest, the third waits a second
    await client.callTool('whoami', {})
    await client.callTool('whoami', {})
    const before = requests
    const started = Date.now()
    const result = await client.callTool('whoami', {})
    expect(result.isError).not.toBe(true)
    expect(requests - before).toBe(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    await client.close()
  })
})
