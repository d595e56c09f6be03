import { chmod, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StoredAuditEvent } from '../../src/observe/audit-event.js'
import { createLog, logLevelFromEnv } from '../../src/observe/log.js'
import { Observer } from '../../src/observe/observer.js'
import { type FinishedRequest, noteCaller, noteRoute, requestRecord } from '../../src/observe/request-record.js'

/** A server whose requests `observer` watches; the handler notes a route and a caller like the real routers do. */
async function listen(observer: Observer): Promise<{ url: string; server: Server }> {
  const server = createServer(
    observer.observeRequests((req, res) => {
      noteRoute(req, '/things/{id}')
      noteRoute(req, '/second-router-loses')
      noteCaller(req, { clientId: 'client-1', subject: 'sub-1' })
      if (req.url === '/abort') {
        res.write('partial')
        req.socket.destroy()
        return
      }
      res.writeHead(200, { 'content-length': '5' }).end('hello')
    }),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

describe('Observer.observeRequests', () => {
  const finished: FinishedRequest[] = []
  const started: string[] = []
  const trusting = new Observer({ trustProxy: true })
  const untrusting = new Observer()
  for (const observer of [trusting, untrusting]) {
    observer.addRequestObserver({
      needsBytes: true,
      start: (record, req: IncomingMessage) => {
        started.push(record.id)
        expect(requestRecord(req)).toBe(record)
      },
      finish: (done) => finished.push(done),
    })
  }
  let trusted: { url: string; server: Server }
  let untrusted: { url: string; server: Server }
  beforeAll(async () => {
    trusted = await listen(trusting)
    untrusted = await listen(untrusting)
  })
  afterAll(() => {
    trusted.server.close()
    untrusted.server.close()
  })

  it('gives each request an id, answers it in x-request-id, and tells each observer once when the answer ended', async () => {
    finished.length = 0
    const response = await fetch(`${untrusted.url}/things/42?code=secret`)
    expect(await response.text()).toBe('hello')
    const id = response.headers.get('x-request-id')
    expect(id).toMatch(/^[A-Za-z0-9_-]{12}-[0-9a-z]+$/)
    await expect.poll(() => finished.length).toBe(1)
    const [done] = finished
    expect(done!.record.id).toBe(id)
    expect(started).toContain(id)
    expect(done!.status).toBe(200)
    expect(done!.bytes).toBe(5)
    expect(done!.aborted).toBe(false)
    expect(done!.durationMs).toBeGreaterThan(0)
    expect(done!.record.route).toBe('/things/{id}')
    expect(done!.record).toMatchObject({ clientId: 'client-1', subject: 'sub-1', method: 'GET' })
  })

  it("takes a trusted proxy's x-request-id, or the trace id of its traceparent", async () => {
    const given = await fetch(`${trusted.url}/x`, { headers: { 'x-request-id': 'lb-1234.abc' } })
    expect(given.headers.get('x-request-id')).toBe('lb-1234.abc')
    const traced = await fetch(`${trusted.url}/x`, { headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } })
    expect(traced.headers.get('x-request-id')).toBe('4bf92f3577b34da6a3ce929d0e0e4736')
  })

  it('never takes the id from an untrusted peer, nor one that would break a log line', async () => {
    const untrustedPeer = await fetch(`${untrusted.url}/x`, { headers: { 'x-request-id': 'lb-1234.abc' } })
    expect(untrustedPeer.headers.get('x-request-id')).not.toBe('lb-1234.abc')
    const spaced = await fetch(`${trusted.url}/x`, { headers: { 'x-request-id': 'two words' } })
    expect(spaced.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9_-]{12}-[0-9a-z]+$/)
  })

  it('tells the observers of an answer cut short by the connection closing, once', async () => {
    finished.length = 0
    await fetch(`${untrusted.url}/abort`)
      .then((response) => response.text())
      .catch(() => undefined)
    await expect.poll(() => finished.length).toBe(1)
    expect(finished[0]!.aborted).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(finished).toHaveLength(1)
  })
})

describe('Observer.audit', () => {
  it('stamps each event with a unique id, the time and the node, for the trail and every audit observer', () => {
    const appended: StoredAuditEvent[] = []
    const observed: StoredAuditEvent[] = []
    const observer = new Observer({ node: 'node-a' })
    observer.attachTrail({
      append: (event) => appended.push(event),
      query: async () => [],
      follow: async () => undefined,
      flushed: async () => undefined,
      close: async () => undefined,
    })
    observer.addAuditObserver((event) => observed.push(event))
    observer.audit({ type: 'sign-in.failed', result: 'failure', reason: 'invalid_credentials', username: 'alice' })
    observer.audit({ type: 'sign-in.succeeded', result: 'success', username: 'alice' })
    expect(appended).toEqual(observed)
    expect(appended.map((event) => event.type)).toEqual(['sign-in.failed', 'sign-in.succeeded'])
    expect(new Set(appended.map((event) => event.id)).size).toBe(2)
    expect(appended[0]).toMatchObject({ node: 'node-a', result: 'failure', reason: 'invalid_credentials', username: 'alice' })
    expect(Date.parse(appended[0]!.at)).toBeGreaterThan(Date.now() - 60_000)
  })

  it('refuses a second trail (an event must not be split between two) and never throws into the flow when the trail does', () => {
    const observer = new Observer()
    const failing = {
      append: () => {
        throw new Error('disk full')
      },
      query: async () => [],
      follow: async () => undefined,
      flushed: async () => undefined,
      close: async () => undefined,
    }
    observer.attachTrail(failing)
    expect(() => observer.attachTrail({ ...failing })).toThrow(/already keeps its audit trail/)
    expect(() => observer.audit({ type: 'keys.rotated', result: 'success' })).not.toThrow()
  })
})

describe('createLog', () => {
  it('writes JSON lines to a file it creates 0600, at the level asked', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'mcp-auth-log-')), 'server.log')
    const log = createLog({ level: 'warn', destination: file })
    log.info('not written')
    log.warn({ route: '/token' }, 'written')
    log.flush()
    await expect.poll(async () => (await readFile(file, 'utf8').catch(() => '')).length).toBeGreaterThan(0)
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ level: 'warn', route: '/token', msg: 'written' })
    expect((await stat(file)).mode & 0o777).toBe(0o600)
  })

  it("makes a log file that already exists the owner's alone (0600)", async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'mcp-auth-log-')), 'server.log')
    await writeFile(file, '', { mode: 0o644 })
    await chmod(file, 0o644)
    const log = createLog({ level: 'info', destination: file })
    log.info('hello')
    log.flush()
    expect((await stat(file)).mode & 0o777).toBe(0o600)
  })

  it('censors the field names that would carry a secret, should a caller ever pass one', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'mcp-auth-log-')), 'server.log')
    const log = createLog({ level: 'info', destination: file })
    log.info({ password: 'Pw-SECRET-1', body: { client_secret: 'Cs-SECRET-2', refresh_token: 'Rt-SECRET-3' } }, 'oops')
    log.flush()
    await expect.poll(async () => (await readFile(file, 'utf8').catch(() => '')).length).toBeGreaterThan(0)
    const text = await readFile(file, 'utf8')
    expect(text).not.toMatch(/SECRET/)
    expect(text).toContain('[redacted]')
  })

  it('reads its level from MCP_AUTH_LOG_LEVEL, ignoring a value that names no level', () => {
    expect(logLevelFromEnv({ MCP_AUTH_LOG_LEVEL: 'Debug' })).toBe('debug')
    expect(logLevelFromEnv({ MCP_AUTH_LOG_LEVEL: 'verbose' })).toBeUndefined()
    expect(logLevelFromEnv({})).toBeUndefined()
  })
})
