/**
 * Issue 31 (item 6): a host whose sessions are pinned (the gateway: a session's child runs in one
 * process) is served by several handlers on one store and one bus. Another handler never takes
 * such a session up: it forwards the requests to the handler that runs it, which answers back
 * over the bus. Two handlers, each on its own HTTP port on 127.0.0.1, share an in-process bus and
 * an in-memory session store; the host echoes which handler's session answered.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { JsonRpcMessage, RequestId } from '../../../../src/jsonrpc/index.js'
import type { Transport } from '../../../../src/protocol/transport.js'
import type { HostedSession, SessionHost } from '../../../../src/session-host/session-host.js'
import { InProcessMessageBus, type MessageBus } from '../../../../src/sessions/message-bus.js'
import { InMemorySessionStore } from '../../../../src/sessions/session-store.js'
import { StreamableHttpHandler } from '../../../../src/transports/streamable-http/server/index.js'

/** A session that answers with the name of its host, asynchronously (as a child does); `slow` waits until released. */
class EchoSession implements HostedSession {
  protocolVersion: string | undefined
  clientCapabilities = undefined
  clientInfo = undefined
  subscriptions: string[] = []
  logLevel = undefined
  onclose?: (() => void) | undefined
  #transport: Transport | undefined
  readonly #host: EchoHost

  constructor(host: EchoHost) {
    this.#host = host
  }

  async connect(transport: Transport): Promise<void> {
    this.#transport = transport
    transport.onclose = () => this.onclose?.()
    await transport.start()
  }
  receive(payload: unknown): void {
    this.receiveMessages(Array.isArray(payload) ? payload : [payload as JsonRpcMessage])
  }
  receiveMessages(messages: readonly JsonRpcMessage[]): void {
    for (const message of messages) {
      if (!('method' in message)) continue
      if (!('id' in message)) {
        if (message.method === 'notifications/cancelled') this.#host.cancelled.push(message.params?.requestId as RequestId)
        continue
      }
      setTimeout(() => void this.#answer(message.id, message.method), 1)
    }
  }
  async #answer(id: RequestId, method: string): Promise<void> {
    const transport = this.#transport!
    if (method === 'initialize') {
      this.protocolVersion = '2025-11-25'
      await transport.send(
        { jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: this.#host.name, version: '1' } } },
        { relatedRequestId: id },
      )
      return
    }
    if (method === 'slow') {
      await transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: id, progress: 1 } }, { relatedRequestId: id })
      await new Promise<void>((resolve) => this.#host.waiting.push(resolve))
    }
    await transport.send({ jsonrpc: '2.0', id, result: { echo: method, by: this.#host.name } }, { relatedRequestId: id })
  }
  restore(): void {
    throw new Error('a pinned session cannot be restored')
  }
  applySharedState(): void {}
  async close(): Promise<void> {
    await this.#transport?.close()
  }
}

class EchoHost implements SessionHost {
  readonly pinnedSessions = true
  readonly name: string
  readonly cancelled: RequestId[] = []
  readonly waiting: Array<() => void> = []
  constructor(name: string) {
    this.name = name
  }
  createSession(): HostedSession {
    return new EchoSession(this)
  }
  readStatelessMeta(): never {
    throw new Error('not used')
  }
  checkStateless(): void {}
  serveStateless(): Promise<Record<string, unknown>> {
    return Promise.reject(new Error('not used'))
  }
  getTool(): undefined {
    return undefined
  }
}

/** A bus a node can be cut from, as when its process dies: it hears nothing, and nothing it sends goes. */
class CuttableBus implements MessageBus {
  cut = false
  readonly #bus: MessageBus
  constructor(bus: MessageBus) {
    this.#bus = bus
  }
  async publish(channel: string, message: string): Promise<void> {
    if (!this.cut) await this.#bus.publish(channel, message)
  }
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    return this.#bus.subscribe(channel, (message) => {
      if (!this.cut) listener(message)
    })
  }
}

interface Node {
  url: string
  host: EchoHost
  handler: StreamableHttpHandler
  bus: CuttableBus
}

const servers: Server[] = []
const handlers: StreamableHttpHandler[] = []
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((handler) => handler.close()))
  for (const http of servers.splice(0)) {
    http.closeAllConnections()
    await new Promise((resolve) => http.close(resolve))
  }
})

async function twoNodes(): Promise<[Node, Node]> {
  const bus = new InProcessMessageBus()
  const sessionStore = new InMemorySessionStore()
  const start = async (name: string): Promise<Node> => {
    const host = new EchoHost(name)
    const nodeBus = new CuttableBus(bus)
    const handler = new StreamableHttpHandler(host, { allowedHosts: ['127.0.0.1'], sessionStore, bus: nodeBus })
    const http = createServer((req, res) => void handler.handle(req, res))
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    servers.push(http)
    handlers.push(handler)
    return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, host, handler, bus: nodeBus }
  }
  return [await start('a'), await start('b')]
}

function post(url: string, body: unknown, sessionId?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  if (sessionId !== undefined) Object.assign(headers, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' })
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
}

/** Every JSON-RPC message of an answer (JSON, or the data lines of an SSE stream). */
async function messagesOf(response: Response): Promise<Array<Record<string, unknown>>> {
  const text = await response.text()
  if (response.headers.get('content-type')?.startsWith('application/json')) return [JSON.parse(text)]
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice('data: '.length)))
}

async function initializeOn(node: Node): Promise<string> {
  const init = await post(node.url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  })
  expect(init.status).toBe(200)
  const sessionId = init.headers.get('mcp-session-id')!
  expect(await messagesOf(init)).toMatchObject([{ id: 0, result: { serverInfo: { name: node.host.name } } }])
  await post(node.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)
  return sessionId
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(check()).toBe(true)
}

describe('StreamableHttpHandler with a host whose sessions are pinned', () => {
  it("answers a request posted to another handler from the session's own handler, progress included", async () => {
    const [a, b] = await twoNodes()
    const sessionId = await initializeOn(a)
    for (let id = 1; id <= 4; id++) {
      const node = id % 2 === 0 ? a : b
      const answer = await post(node.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } }, sessionId)
      expect(answer.status).toBe(200)
      expect(await messagesOf(answer)).toEqual([{ jsonrpc: '2.0', id, result: { echo: 'tools/call', by: 'a' } }])
    }
    const slow = post(b.url, { jsonrpc: '2.0', id: 5, method: 'slow', params: { _meta: { progressToken: 5 } } }, sessionId)
    await until(() => a.host.waiting.length === 1)
    a.host.waiting.shift()!()
    const messages = await messagesOf(await slow)
    expect(messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 5, progress: 1 } },
      { jsonrpc: '2.0', id: 5, result: { echo: 'slow', by: 'a' } },
    ])
    expect(b.handler.sessionCount).toBe(1)
  })

  it("carries a cancellation posted to another handler to the session's own handler", async () => {
    const [a, b] = await twoNodes()
    const sessionId = await initializeOn(a)
    const slow = post(b.url, { jsonrpc: '2.0', id: 7, method: 'slow' }, sessionId)
    await until(() => a.host.waiting.length === 1)
    const cancel = await post(b.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }, sessionId)
    expect(cancel.status).toBe(202)
    await until(() => a.host.cancelled.includes(7))
    // the cancelled request's exchange ends without its response
    expect(await messagesOf(await slow)).not.toContainEqual(expect.objectContaining({ id: 7 }))
  })

  it('answers 404 (-32001) on the other handler once the session ended where it ran', async () => {
    const [a, b] = await twoNodes()
    const sessionId = await initializeOn(a)
    expect((await post(b.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, sessionId)).status).toBe(200)
    const deleted = await fetch(a.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } })
    expect(deleted.status).toBe(200)
    await until(() => b.handler.sessionCount === 0)
    const gone = await post(b.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, sessionId)
    expect(gone.status).toBe(404)
    expect(await gone.json()).toMatchObject({ error: { code: -32001 } })
  })

  it('ends the session where it runs when it is deleted through another handler', async () => {
    const [a, b] = await twoNodes()
    const sessionId = await initializeOn(a)
    const deleted = await fetch(b.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } })
    expect(deleted.status).toBe(200)
    await until(() => a.handler.sessionCount === 0)
    expect((await post(a.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, sessionId)).status).toBe(404)
  })

  it('answers 404 (-32001) when the handler that ran the session is gone without a word', async () => {
    const [a, b] = await twoNodes()
    const sessionId = await initializeOn(a)
    a.bus.cut = true
    const started = Date.now()
    const gone = await post(b.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }, sessionId)
    expect(gone.status).toBe(404)
    expect(await gone.json()).toMatchObject({ id: 1, error: { code: -32001 } })
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000)
  })

  it('finishes the requests forwarded to a draining handler, then ends its sessions for every handler', async () => {
    const [a, b] = await twoNodes()
    const sessionId = await initializeOn(a)
    const slow = post(b.url, { jsonrpc: '2.0', id: 3, method: 'slow' }, sessionId)
    await until(() => a.host.waiting.length === 1)
    let drained = false
    const draining = a.handler.close().then(() => (drained = true))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(drained).toBe(false)
    a.host.waiting.shift()!()
    expect(await messagesOf(await slow)).toContainEqual({ jsonrpc: '2.0', id: 3, result: { echo: 'slow', by: 'a' } })
    await draining
    await until(() => b.handler.sessionCount === 0)
    const gone = await post(b.url, { jsonrpc: '2.0', id: 4, method: 'ping' }, sessionId)
    expect(gone.status).toBe(404)
    // a new session is served where it is created
    const fresh = await initializeOn(b)
    expect(fresh).not.toBe(sessionId)
  })
})
