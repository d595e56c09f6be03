// Issue 27 item 13: a drain a load balancer can follow (health first, then Connection: close,
// streams ended with a retry hint, requests in flight finished, then the listener closes).
import { Agent, request, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { drain } from '../../src/cli/drain.js'
import { createCliServer, listenOn } from '../../src/cli/serve.js'
import { defaults } from '../../src/config/defaults.js'
import { createDemoServer } from '../../src/demo/demo-server.js'
import { StreamableHttpHandler } from '../../src/transports/streamable-http/server/streamable-http-handler.js'
import { markOpenEndedStream } from '../../src/transports/http/open-ended-stream.js'

const servers: Array<ReturnType<typeof createCliServer>> = []
afterEach(() => {
  for (const server of servers.splice(0)) server.closeAllConnections()
})

async function serve(...args: Parameters<typeof createCliServer>): Promise<{ server: ReturnType<typeof createCliServer>; url: string }> {
  const server = createCliServer(...args)
  servers.push(server)
  await listenOn(server, 0, '127.0.0.1')
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** What is left on an SSE stream until it ends. */
async function rest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text
    text += decoder.decode(value, { stream: true })
  }
}

/** One GET through `agent` (kept-alive connections), or an error code when the connection fails. */
function get(url: string, path: string, agent: Agent): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const { port } = new URL(url)
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', (error) => resolve({ status: 0, headers: {}, body: (error as NodeJS.ErrnoException).code ?? String(error) }))
    req.end()
  })
}

describe('createCliServer health endpoint', () => {
  it('answers /healthz 200 while the check passes and 503 once it fails, without reaching the handler', async () => {
    let healthy = true
    let handled = 0
    const { url } = await serve(
      (_req, res) => {
        handled += 1
        res.end('app')
      },
      { health: async () => healthy },
    )
    const ok = await fetch(`${url}/healthz`)
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ status: 'ok' })
    healthy = false
    const down = await fetch(`${url}/healthz`)
    expect(down.status).toBe(503)
    expect(await down.json()).toEqual({ status: 'unavailable' })
    expect(handled).toBe(0)
    expect(await (await fetch(`${url}/other`)).text()).toBe('app')
  })

  it('leaves /healthz to the handler when no check is given', async () => {
    const { url } = await serve((_req, res) => res.end('mine'))
    expect(await (await fetch(`${url}/healthz`)).text()).toBe('mine')
  })
})

describe('drain', () => {
  it('lets a request in flight finish (a POST’s SSE answer too), refuses new connections, and ends GET streams with a retry hint', async () => {
    let release: () => void = () => undefined
    const { server, url } = await serve(
      (req, res) => {
        if (req.method === 'POST') {
          // an SSE answer to a POST: work in flight, waited for
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          res.write('data: started\n\n')
          release = () => res.end('data: finished\n\n')
          return
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write(': open\n\n')
      },
      { health: async () => true },
    )
    const slow = fetch(`${url}/mcp`, { method: 'POST' }).then((res) => res.text())
    const stream = await fetch(`${url}/events`)
    const reader = stream.body!.getReader()
    await reader.read()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const port = new URL(url).port
    const draining = drain(server, { timeoutMs: 5_000 })
    const health = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/healthz' }, (res) => {
        let body = ''
        res.on('data', (chunk: Buffer) => (body += chunk.toString()))
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      })
      req.on('error', (error) => resolve({ status: 0, body: (error as NodeJS.ErrnoException).code ?? '' }))
      req.end()
      setTimeout(() => reject(new Error('no answer')), 2_000).unref()
    })
    // a new connection is refused: the listener no longer accepts
    expect(health).toEqual({ status: 0, body: 'ECONNREFUSED' })
    await new Promise((resolve) => setTimeout(resolve, 100))
    release()
    expect(await slow).toBe('data: started\n\ndata: finished\n\n')
    const waited = Date.now()
    await draining
    expect(Date.now() - waited).toBeLessThan(1_000)
    // the event stream ended cleanly with a retry hint (its client resumes elsewhere)
    expect(await rest(reader)).toBe('retry: 1000\n\n')
  })

  it('closes what is left once the timeout passes', async () => {
    const { server, url } = await serve(() => undefined)
    const hanging = fetch(`${url}/never`).then(
      () => 'answered',
      () => 'cut',
    )
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = Date.now()
    await drain(server, { timeoutMs: 200 })
    expect(Date.now() - started).toBeGreaterThanOrEqual(150)
    expect(await hanging).toBe('cut')
  })
})

describe('drain a load balancer follows', () => {
  it('answers /healthz 503 "draining" at once and goes on serving on kept-alive and new connections for the delay', async () => {
    const { server, url } = await serve((_req, res) => res.end('app'), { health: async () => true })
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      // the balancer checks: the server knows it is followed
      expect((await get(url, '/healthz', agent)).status).toBe(200)
      const started = Date.now()
      const draining = drain(server, { delayMs: 800, timeoutMs: 2_000 })
      const health = await get(url, '/healthz', agent)
      expect(health.status).toBe(503)
      expect(JSON.parse(health.body)).toEqual({ status: 'draining' })
      // the same kept-alive connection, and a new one, still get answers that keep the connection
      const reused = await get(url, '/tool', agent)
      expect(reused).toMatchObject({ status: 200, body: 'app' })
      expect(reused.headers.connection).not.toBe('close')
      const fresh = await fetch(`${url}/tool`)
      expect(await fresh.text()).toBe('app')
      expect(Date.now() - started).toBeLessThan(800)
      await draining
      expect(Date.now() - started).toBeGreaterThanOrEqual(750)
      // then the listener is closed
      expect((await get(url, '/tool', new Agent())).body).toBe('ECONNREFUSED')
    } finally {
      agent.destroy()
    }
  })

  it('says Connection: close on an answer that leaves after the delay, and lets it finish', async () => {
    let release: () => void = () => undefined
    const { server, url } = await serve(
      (req, res) => {
        if (req.url === '/slow') release = () => res.end('late')
        else res.end('app')
      },
      { health: async () => true },
    )
    const agent = new Agent({ keepAlive: true })
    try {
      await get(url, '/healthz', agent)
      const slow = get(url, '/slow', agent)
      await new Promise((resolve) => setTimeout(resolve, 50))
      const draining = drain(server, { delayMs: 300, timeoutMs: 5_000 })
      await new Promise((resolve) => setTimeout(resolve, 500))
      release()
      const answer = await slow
      expect(answer).toMatchObject({ status: 200, body: 'late' })
      expect(answer.headers.connection).toBe('close')
      await draining
    } finally {
      agent.destroy()
    }
  })

  it('skips the delay when no health check came in (nothing follows the server)', async () => {
    const { server } = await serve((_req, res) => res.end('app'), { health: async () => true })
    const started = Date.now()
    await drain(server, { delayMs: 5_000, timeoutMs: 1_000 })
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it('ends a subscriptions/listen stream (a marked POST answer) with a retry hint instead of waiting for it', async () => {
    const { server, url } = await serve((_req, res) => {
      markOpenEndedStream(res)
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: acknowledged\n\n')
    })
    const listen = await fetch(`${url}/mcp`, { method: 'POST' })
    const reader = listen.body!.getReader()
    await reader.read()
    const started = Date.now()
    await drain(server, { timeoutMs: 5_000, retryMs: 2_500 })
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(await rest(reader)).toBe('retry: 2500\n\n')
  })

  it('ends a real subscriptions/listen stream of the MCP endpoint with a retry hint at once', async () => {
    const mcp = new StreamableHttpHandler(createDemoServer(), { allowedHosts: ['127.0.0.1'] })
    const { server, url } = await serve((req, res) => void mcp.handle(req, res))
    const version = '2026-07-28'
    const listen = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': version, 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'subscriptions/listen',
        params: {
          notifications: { toolsListChanged: true },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': version,
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'drain-test', version: '1' },
          },
        },
      }),
    })
    expect(listen.status).toBe(200)
    const reader = listen.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('notifications/subscriptions/acknowledged')
    const started = Date.now()
    await drain(server, { timeoutMs: 5_000 })
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(await rest(reader)).toMatch(/retry: \d+\n\n$/)
    await mcp.close()
  })

  it('stops waiting at once when its signal aborts (a second SIGTERM or Ctrl-C)', async () => {
    const { server, url } = await serve(() => undefined, { health: async () => true })
    await fetch(`${url}/healthz`)
    const hanging = fetch(`${url}/never`).then(
      () => 'answered',
      () => 'cut',
    )
    await new Promise((resolve) => setTimeout(resolve, 50))
    const hurry = new AbortController()
    const started = Date.now()
    const draining = drain(server, { delayMs: 10_000, timeoutMs: 10_000, signal: hurry.signal })
    setTimeout(() => hurry.abort(), 100)
    await draining
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(await hanging).toBe('cut')
  })

  it('keeps idle connections longer than a balancer keeps them for reuse, and says so', async () => {
    const { server, url } = await serve((_req, res) => res.end('app'))
    expect(server.keepAliveTimeout).toBe(defaults.cli.keepAliveTimeoutMs)
    expect(defaults.cli.keepAliveTimeoutMs).toBeGreaterThan(60_000)
    const agent = new Agent({ keepAlive: true })
    try {
      expect((await get(url, '/', agent)).headers['keep-alive']).toBe(`timeout=${defaults.cli.keepAliveTimeoutMs / 1000}`)
    } finally {
      agent.destroy()
    }
  })
})
