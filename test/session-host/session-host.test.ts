/**
 * The session-host seam (issue 29): the HTTP transports serve any SessionHost they are handed, not
 * only McpServer (the gateway relays to child processes). Here a host that echoes each
 * request's method, with nothing of src/server/ behind it, is served over Streamable HTTP.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { JsonRpcMessage } from '../../src/jsonrpc/index.js'
import type { Transport } from '../../src/protocol/transport.js'
import type { HostedSession, SessionHost } from '../../src/session-host/session-host.js'
import type { SharedSessionState } from '../../src/sessions/shared-session-state.js'
import { StreamableHttpHandler } from '../../src/transports/streamable-http/server/index.js'

/** A session that answers every request with the method it named: JSON-RPC in, messages out. */
class EchoSession implements HostedSession {
  protocolVersion: string | undefined
  clientCapabilities = undefined
  clientInfo = undefined
  subscriptions: string[] = []
  logLevel = undefined
  onclose?: (() => void) | undefined
  #transport: Transport | undefined

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
      if (!('method' in message) || !('id' in message)) continue
      if (message.method === 'initialize') this.protocolVersion = '2025-11-25'
      const result = message.method === 'initialize' ? { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'echo', version: '1' } } : { echo: message.method }
      void this.#transport?.send({ jsonrpc: '2.0', id: message.id, result }, { relatedRequestId: message.id })
    }
  }
  restore(state: { protocolVersion: string } & SharedSessionState): void {
    this.protocolVersion = state.protocolVersion
  }
  applySharedState(): void {}
  async close(): Promise<void> {
    await this.#transport?.close()
  }
}

const echoHost: SessionHost = {
  createSession: () => new EchoSession(),
  readStatelessMeta: () => {
    throw new Error('not used')
  },
  checkStateless: () => {},
  serveStateless: () => Promise.reject(new Error('not used')),
  getTool: () => undefined,
}

let http: Server | undefined
let handler: StreamableHttpHandler | undefined
afterEach(async () => {
  await handler?.close()
  http?.closeAllConnections()
  await new Promise((resolve) => http?.close(resolve))
})

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  })
}

/** The one JSON-RPC message of an answer, sent as JSON or as an SSE stream. */
async function answerOf(response: Response): Promise<unknown> {
  const text = await response.text()
  if (response.headers.get('content-type')?.startsWith('application/json')) return JSON.parse(text)
  const data = text.split('\n').find((line) => line.startsWith('data: {'))
  return JSON.parse(data!.slice('data: '.length))
}

describe('StreamableHttpHandler over a SessionHost', () => {
  it('serves a host that is not an McpServer: a session is created at initialize and answers its requests', async () => {
    handler = new StreamableHttpHandler(echoHost, { allowedHosts: ['127.0.0.1'] })
    const h = handler
    http = createServer((req, res) => void h.handle(req, res))
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`

    const init = await post(url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    })
    expect(init.status).toBe(200)
    const sessionId = init.headers.get('mcp-session-id')
    expect(sessionId).toBeTruthy()
    expect(await answerOf(init)).toMatchObject({ id: 1, result: { serverInfo: { name: 'echo' } } })

    const call = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } }, { 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-11-25' })
    expect(call.status).toBe(200)
    expect(await answerOf(call)).toEqual({ jsonrpc: '2.0', id: 2, result: { echo: 'tools/call' } })
    expect(handler.sessionCount).toBe(1)
  })
})
