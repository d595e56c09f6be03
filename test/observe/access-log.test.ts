// Issue 33 (logs): one access line per HTTP request, with the route template and never the raw path.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpHttpApp } from '../../src/app/mcp-http-app.js'
import { InvalidRequestError } from '../../src/auth/errors.js'
import { createDemoServer } from '../../src/demo/demo-server.js'
import { accessLog } from '../../src/observe/access-log.js'
import type { Log, LogLevel } from '../../src/observe/log.js'
import { Observer } from '../../src/observe/observer.js'
import { noteCaller, noteRoute } from '../../src/observe/request-record.js'
import { listenOnLoopback } from '../helpers/listen.js'

/** A pino log whose lines the test reads, as JSON objects. */
function memoryLog(level: LogLevel): { log: Log; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) if (text !== '') lines.push(JSON.parse(text) as Record<string, unknown>)
      done()
    },
  })
  return { log: pino({ level }, sink), lines }
}

/** The lines once the server is done with them (the finish observer runs right after the answer). */
async function settled(lines: unknown[], count: number): Promise<void> {
  const deadline = Date.now() + 2_000
  while (lines.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe('accessLog', () => {
  const info = memoryLog('info')
  const quiet = memoryLog('warn')
  let server: { url: string; close(): Promise<void> }
  let unobserved: { url: string; close(): Promise<void> }

  const routed = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0]!
    if (path.startsWith('/accounts/')) {
      noteRoute(req, '/accounts/{username}')
      noteCaller(req, { clientId: 'client-1', subject: 'alice' })
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5' }).end('hello')
      return
    }
    if (path === '/healthz') noteRoute(req, '/healthz')
    res.writeHead(404).end()
  }

  beforeAll(async () => {
    const observer = new Observer({ log: info.log })
    observer.addRequestObserver(accessLog({ log: info.log, addressOf: () => '127.0.0.1', quietRoutes: ['/healthz'] }))
    server = await listenOnLoopback(observer.observeRequests(routed))
    const off = new Observer({ log: quiet.log })
    off.addRequestObserver(accessLog({ log: quiet.log }))
    unobserved = await listenOnLoopback(off.observeRequests(routed))
  })
  afterAll(async () => {
    await server.close()
    await unobserved.close()
  })

  it('writes one line per request with the route template, status, duration, bytes, caller, address group and request id', async () => {
    const before = info.lines.length
    const answer = await fetch(`${server.url}/accounts/alice-SECRET-name?code=abc123`)
    await answer.text()
    await settled(info.lines, before + 1)
    expect(info.lines.length).toBe(before + 1)
    const line = info.lines.at(-1)!
    expect(line).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      route: '/accounts/{username}',
      status: 200,
      bytes: 5,
      client_id: 'client-1',
      sub: 'alice',
      address_group: '127.0.0.1',
      request_id: answer.headers.get('x-request-id'),
    })
    expect(typeof line['duration_ms']).toBe('number')
    // neither the raw path nor the query reaches the line
    expect(JSON.stringify(line)).not.toMatch(/SECRET|abc123/)
  })

  it('names a request no router claimed unmatched, never by its path', async () => {
    const before = info.lines.length
    await (await fetch(`${server.url}/interaction/uid-SECRET/login`)).text()
    await settled(info.lines, before + 1)
    const line = info.lines.at(-1)!
    expect(line).toMatchObject({ route: 'unmatched', status: 404 })
    expect(JSON.stringify(line)).not.toContain('SECRET')
  })

  it('writes a quiet route (the health check) at debug, not info', async () => {
    const before = info.lines.length
    await (await fetch(`${server.url}/healthz`)).text()
    await (await fetch(`${server.url}/accounts/carol`)).text()
    await settled(info.lines, before + 1)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(info.lines.slice(before).map((line) => line['route'])).toEqual(['/accounts/{username}'])
  })

  it('writes nothing when the level is above info', async () => {
    await (await fetch(`${unobserved.url}/accounts/bob`)).text()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(quiet.lines).toEqual([])
  })
})

describe('the Koa app of createMcpHttpApp, observed', () => {
  const { log, lines } = memoryLog('info')
  let server: { url: string; close(): Promise<void> }
  let app: ReturnType<typeof createMcpHttpApp>

  beforeAll(async () => {
    const observer = new Observer({ log })
    observer.addRequestObserver(accessLog({ log }))
    app = createMcpHttpApp(createDemoServer(), {
      host: '127.0.0.1',
      observer,
      middleware: [
        async (ctx, next) => {
          if (ctx.path === '/refuse') throw new InvalidRequestError('the request names no resource')
          if (ctx.path === '/bug') throw new TypeError('our own bug')
          return next()
        },
      ],
    })
    server = await listenOnLoopback(observer.observeRequests(app.handler))
  })
  afterAll(async () => {
    await server.close()
    await app.close()
  })

  it('logs a client mistake (a 4xx) as one line without a stack, beside its access line', async () => {
    const before = lines.length
    expect((await fetch(`${server.url}/refuse`)).status).toBe(400)
    await settled(lines, before + 2)
    const written = lines.slice(before)
    expect(written).toHaveLength(2)
    expect(written.find((line) => line['msg'] === 'request refused')).toMatchObject({ level: 30, status: 400, error: 'invalid_request', reason: 'the request names no resource' })
    expect(JSON.stringify(written)).not.toMatch(/\bat .*\.ts:\d+/)
  })

  it('logs our own bug (a 500) at error with its stack', async () => {
    const before = lines.length
    expect((await fetch(`${server.url}/bug`)).status).toBe(500)
    await settled(lines, before + 2)
    const error = lines.slice(before).find((line) => line['level'] === 50)!
    expect((error['err'] as { stack: string }).stack).toMatch(/TypeError: our own bug\n\s+at /)
  })

  it('notes the MCP route as its template, the MCP method and the tool it calls', async () => {
    const post = async (message: unknown): Promise<void> => {
      await (
        await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(message),
        })
      ).text()
    }
    const before = lines.length
    await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })
    await settled(lines, before + 1)
    expect(lines.at(-1)).toMatchObject({ msg: 'request', method: 'POST', route: '/mcp', status: 200, mcp_method: 'initialize' })
    // a call without a session is refused, and still named; its arguments never are
    await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'argument-SECRET' } } })
    await settled(lines, before + 2)
    expect(lines.at(-1)).toMatchObject({ route: '/mcp', mcp_method: 'tools/call', mcp_target: 'echo' })
    expect(JSON.stringify(lines.slice(before))).not.toContain('argument-SECRET')
  })
})
