/**
 * Real HTTP for the Streamable HTTP server tests: a node:http server on 127.0.0.1:0 serving the
 * handler (or the Koa app), fetch for requests, and an SSE reader built on eventsource-parser.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { expect } from 'vitest'
import { createMcpHttpApp, type McpHttpApp, type McpHttpAppOptions } from '../../../../src/app/mcp-http-app.js'
import { createDemoServer } from '../../../../src/demo/demo-server.js'
import type { McpServer } from '../../../../src/server/mcp-server.js'
import { StreamableHttpHandler, type StreamableHttpOptions } from '../../../../src/transports/streamable-http/server/index.js'

export const ACCEPT_BOTH = 'application/json, text/event-stream'
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

export interface Harness {
  /** The MCP endpoint URL. */
  url: string
  port: number
  server: McpServer
  handler: StreamableHttpHandler
  close(): Promise<void>
}

const open = new Set<{ close(): Promise<void> }>()
const streams = new Set<SseStream>()

/** Close every server and SSE reader the test started (call from afterEach). */
export async function closeAll(): Promise<void> {
  for (const stream of streams) stream.abort()
  streams.clear()
  await Promise.all([...open].map((h) => h.close()))
  open.clear()
}

async function listen(listener: RequestListener, onClose: () => Promise<void>): Promise<{ port: number; close(): Promise<void> }> {
  const http: Server = createServer(listener)
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const port = (http.address() as AddressInfo).port
  const entry = {
    port,
    close: async () => {
      await onClose()
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    },
  }
  open.add(entry)
  return entry
}

/** The handler alone on a plain node:http server (the demo server unless one is given). */
export async function startHandler(options: Partial<StreamableHttpOptions> = {}, server: McpServer = createDemoServer()): Promise<Harness> {
  const handler = new StreamableHttpHandler(server, { allowedHosts: ['127.0.0.1', 'localhost'], ...options })
  const { port, close } = await listen(
    (req, res) => void handler.handle(req, res),
    () => handler.close(),
  )
  return { url: `http://127.0.0.1:${port}/mcp`, port, server, handler, close }
}

/** The Koa app from createMcpHttpApp on a node:http server. */
export async function startKoaApp(options: Partial<McpHttpAppOptions> = {}, server: McpServer = createDemoServer()): Promise<Harness & { app: McpHttpApp }> {
  const app = createMcpHttpApp(server, { host: '127.0.0.1', ...options })
  const { port, close } = await listen(app.app.callback(), () => app.close())
  return { url: `http://127.0.0.1:${port}/mcp`, port, server, handler: app.streamable, app, close }
}

export interface PostOptions {
  sessionId?: string | undefined
  version?: string | undefined
  headers?: Record<string, string>
  signal?: AbortSignal
}

/** POST a JSON-RPC payload (or raw text) the way a conforming client does, unless told otherwise. */
export function post(url: string, body: unknown, options: PostOptions = {}): Promise<Response> {
  const init: RequestInit = {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: ACCEPT_BOTH,
      ...(options.sessionId === undefined ? {} : { 'Mcp-Session-Id': options.sessionId }),
      ...(options.version === undefined ? {} : { 'MCP-Protocol-Version': options.version }),
      ...options.headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  }
  if (options.signal !== undefined) init.signal = options.signal
  return fetch(url, init)
}

/** GET the endpoint with Accept: text/event-stream (the standalone stream, or a resumption). */
export function get(url: string, options: PostOptions & { lastEventId?: string } = {}): Promise<Response> {
  const init: RequestInit = {
    headers: {
      Accept: 'text/event-stream',
      ...(options.sessionId === undefined ? {} : { 'Mcp-Session-Id': options.sessionId }),
      ...(options.version === undefined ? {} : { 'MCP-Protocol-Version': options.version }),
      ...(options.lastEventId === undefined ? {} : { 'Last-Event-ID': options.lastEventId }),
      ...options.headers,
    },
  }
  if (options.signal !== undefined) init.signal = options.signal
  return fetch(url, init)
}

export function request(id: number | string, method: string, params?: Record<string, unknown>) {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }
}

export function notification(method: string, params?: Record<string, unknown>) {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }
}

export const callTool = (id: number | string, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  request(id, 'tools/call', meta === undefined ? { name, arguments: args } : { name, arguments: args, _meta: meta })

export type Message = Record<string, any>

/**
 * One SSE response read as it arrives: events, comments and `retry:` values, with waits for the
 * next event that matches. Reading errors (an aborted fetch, a killed socket) just end it.
 */
export class SseStream {
  readonly response: Response
  readonly events: EventSourceMessage[] = []
  readonly comments: string[] = []
  readonly retries: number[] = []
  readonly ended: Promise<void>
  readonly #controller: AbortController | undefined
  #done = false
  readonly #waiters = new Set<() => void>()

  constructor(response: Response, controller?: AbortController) {
    this.response = response
    this.#controller = controller
    streams.add(this)
    const parser = createParser({
      onEvent: (event) => {
        this.events.push(event)
        this.#wake()
      },
      onComment: (comment) => {
        this.comments.push(comment)
        this.#wake()
      },
      onRetry: (ms) => this.retries.push(ms),
    })
    this.ended = (async () => {
      try {
        const decoder = new TextDecoder()
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }))
      } catch {
        // aborted or cut: the events so far are what arrived
      } finally {
        this.#done = true
        streams.delete(this)
        this.#wake()
      }
    })()
  }

  get done(): boolean {
    return this.#done
  }

  /**
   * The JSON-RPC messages carried so far: `message` events with data (a priming event has none;
   * the legacy transport's `endpoint` event carries a URL).
   */
  get messages(): Message[] {
    return this.events.map(messageOf).filter((m): m is Message => m !== undefined)
  }

  /** Wait for the first event (from the start) that matches; fails when the stream ends first. */
  async waitForEvent(match: (event: EventSourceMessage, message: Message | undefined) => boolean, timeoutMs = 5_000): Promise<EventSourceMessage> {
    const found = () => this.events.find((e) => match(e, messageOf(e)))
    return this.#until(found, timeoutMs, 'event')
  }

  /** Wait for the first message that matches. */
  async waitForMessage(match: (message: Message) => boolean, timeoutMs = 5_000): Promise<Message> {
    const event = await this.waitForEvent((_e, m) => m !== undefined && match(m), timeoutMs)
    return JSON.parse(event.data) as Message
  }

  async waitForComment(match: (comment: string) => boolean, timeoutMs = 5_000): Promise<string> {
    return this.#until(() => this.comments.find(match), timeoutMs, 'comment')
  }

  /** Read to the end (the server closes the stream); fails if it stays open past the timeout. */
  async toEnd(timeoutMs = 5_000): Promise<Message[]> {
    await this.#until(() => (this.#done ? true : undefined), timeoutMs, 'end of stream')
    return this.messages
  }

  /** Hang up, as a client that loses its connection does. */
  abort(): void {
    this.#controller?.abort()
  }

  #until<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        const value = probe()
        if (value !== undefined) {
          cleanup()
          resolve(value)
        } else if (this.#done) {
          cleanup()
          reject(new Error(`stream ended without the awaited ${what}; events: ${JSON.stringify(this.events)}`))
        }
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`timed out waiting for ${what}; events: ${JSON.stringify(this.events)}`))
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        this.#waiters.delete(check)
      }
      this.#waiters.add(check)
      check()
    })
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter()
  }
}

/** The JSON-RPC message of a `message` event; undefined for a priming event or another event type. */
function messageOf(event: EventSourceMessage): Message | undefined {
  if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return undefined
  return JSON.parse(event.data) as Message
}

/** POST and keep the SSE answer open for reading (with a controller to hang up mid-stream). */
export async function postSse(url: string, body: unknown, options: PostOptions = {}): Promise<SseStream> {
  const controller = new AbortController()
  const response = await post(url, body, { ...options, signal: controller.signal })
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    throw new Error(`expected an SSE answer, got ${response.status} ${response.headers.get('content-type')}: ${await response.text()}`)
  }
  return new SseStream(response, controller)
}

/** GET an SSE stream (standalone, or resuming with Last-Event-ID). */
export async function getSse(url: string, options: PostOptions & { lastEventId?: string } = {}): Promise<SseStream> {
  const controller = new AbortController()
  const response = await get(url, { ...options, signal: controller.signal })
  if (response.status !== 200) throw new Error(`expected 200 for GET, got ${response.status}: ${await response.text()}`)
  return new SseStream(response, controller)
}

/** The JSON-RPC messages of an answer, whichever form it took (JSON or SSE). */
export async function readAnswer(response: Response): Promise<Message[]> {
  const type = response.headers.get('content-type') ?? ''
  if (type.startsWith('application/json')) {
    const body = (await response.json()) as Message | Message[]
    return Array.isArray(body) ? body : [body]
  }
  if (type.startsWith('text/event-stream')) return new SseStream(response).toEnd()
  throw new Error(`not an MCP answer: ${response.status} ${type} ${await response.text()}`)
}

export interface McpSession {
  id: string
  version: string
  url: string
  /** Headers a conforming client sends after initialize. */
  options: PostOptions
  /** POST one request and return its response (read from JSON or SSE). */
  call(id: number | string, method: string, params?: Record<string, unknown>): Promise<Message>
}

/** initialize + notifications/initialized, as a client does; MCP-Protocol-Version from 2025-06-18 on. */
export async function initialize(
  url: string,
  options: { protocolVersion?: string; capabilities?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<McpSession> {
  const protocolVersion = options.protocolVersion ?? '2025-11-25'
  const initOptions: PostOptions = options.headers === undefined ? {} : { headers: options.headers }
  const response = await post(
    url,
    request(0, 'initialize', { protocolVersion, capabilities: options.capabilities ?? {}, clientInfo: { name: 'http-test', version: '1.0.0' } }),
    initOptions,
  )
  if (response.status !== 200) throw new Error(`initialize failed: ${response.status} ${await response.text()}`)
  const id = response.headers.get('mcp-session-id')
  if (id === null) throw new Error('initialize answered without Mcp-Session-Id')
  const [answer] = await readAnswer(response)
  const version = answer?.result?.protocolVersion as string
  const sessionOptions: PostOptions = { sessionId: id, ...initOptions }
  if (version >= '2025-06-18') sessionOptions.version = version
  const initialized = await post(url, notification('notifications/initialized'), sessionOptions)
  if (initialized.status !== 202) throw new Error(`notifications/initialized got ${initialized.status}`)
  return {
    id,
    version,
    url,
    options: sessionOptions,
    call: async (requestId, method, params) => {
      const messages = await readAnswer(await post(url, request(requestId, method, params), sessionOptions))
      const response = messages.find((m) => m.id === requestId && ('result' in m || 'error' in m))
      if (response === undefined) throw new Error(`no response to ${method}: ${JSON.stringify(messages)}`)
      return response
    },
  }
}

/** A request through node:http, which (unlike fetch) may set any Host header. */
export function rawRequest(
  port: number,
  options: { method: string; path?: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: options.method, path: options.path ?? '/mcp', headers: options.headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

/** The JSON-RPC error body of a refused HTTP request. */
export async function errorBody(response: Response): Promise<{ jsonrpc: string; id: null; error: { code: number; message: string } }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  return (await response.json()) as { jsonrpc: string; id: null; error: { code: number; message: string } }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The stream an event id belongs to (`<stream>_<n>`). */
export function streamOf(eventId: string | undefined): string {
  const match = /^(.+)_(\d+)$/.exec(eventId ?? '')
  if (match === null) throw new Error(`event id ${JSON.stringify(eventId)} does not look like <stream>_<n>`)
  return match[1]!
}

export function seqOf(eventId: string | undefined): number {
  return Number(/_(\d+)$/.exec(eventId ?? '')?.[1] ?? NaN)
}
