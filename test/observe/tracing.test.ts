import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { context, propagation, SpanKind, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMainJob, type MainJob } from '../../src/app/main-job.js'
import { McpClient } from '../../src/client/mcp-client.js'
import { Observer } from '../../src/observe/observer.js'
import { tracingOn } from '../../src/observe/tracing.js'
import { StreamableHttpClientTransport } from '../../src/transports/streamable-http/client/streamable-http-client-transport.js'

const exporter = new InMemorySpanExporter()
let origin: string
let job: MainJob
let server: Server
let dataDir: string
let client: { client_id: string; client_secret?: string }

beforeAll(async () => {
  // nothing registered yet: no span is made anywhere
  expect(tracingOn()).toBe(false)
  // what a user's SDK set-up does (NodeSDK or the like): a provider, a context manager, the W3C propagator
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  expect(tracingOn()).toBe(true)
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-tracing-'))
  let handler: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined
  server = createServer((req, res) => handler?.(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  job = await createMainJob({ origin, dataDir, observer: new Observer(), demo: false, config: { rateLimits: false } })
  handler = job.handler
  client = await job.as.addClient({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp' })
}, 60_000)

afterAll(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
  await job?.close()
  await rm(dataDir, { recursive: true, force: true })
  trace.disable()
  context.disable()
  propagation.disable()
})

beforeEach(() => exporter.reset())

/** The finished spans once `until` holds (a request's span ends when its answer has ended, maybe just after the client read it). */
async function spans(until: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> {
  for (let i = 0; i < 100; i++) {
    const finished = exporter.getFinishedSpans()
    if (until(finished)) return finished
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(
    `spans never matched: ${exporter
      .getFinishedSpans()
      .map((span) => span.name)
      .join(', ')}`,
  )
}

async function clientCredentials(): Promise<string> {
  const response = await fetch(`${origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${origin}/mcp` }),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId

describe('spans', () => {
  it('makes the token issuance a child of the HTTP request span', async () => {
    await clientCredentials()
    const finished = await spans((all) => all.some((span) => span.kind === SpanKind.SERVER && span.attributes['http.route'] === '/token'))
    const http = finished.find((span) => span.kind === SpanKind.SERVER && span.attributes['http.route'] === '/token')!
    expect(http.name).toBe('POST /token')
    expect(http.attributes['http.request.method']).toBe('POST')
    expect(http.attributes['http.response.status_code']).toBe(200)
    expect(parentOf(http)).toBeUndefined()
    const token = finished.find((span) => span.name === 'oauth.token')!
    expect(token).toBeDefined()
    expect(parentOf(token)).toBe(http.spanContext().spanId)
    expect(token.spanContext().traceId).toBe(http.spanContext().traceId)
    expect(token.attributes['oauth.grant_type']).toBe('client_credentials')
    expect(token.attributes['http.response.status_code']).toBe(200)
    // never a secret, whole or in part, in any attribute
    const attributes = JSON.stringify(finished.map((span) => span.attributes))
    expect(attributes).not.toContain(client.client_secret!.slice(0, 12))
  })

  it('makes an MCP call a child of its HTTP request span, named after the method and tool', async () => {
    const token = await clientCredentials()
    const mcp = new McpClient({ name: 'tracing test', version: '1.0.0' })
    await mcp.connect(new StreamableHttpClientTransport(`${origin}/mcp`, { headers: { authorization: `Bearer ${token}` } }))
    exporter.reset()
    await mcp.callTool('echo', { text: 'a secret-looking argument' })
    const finished = await spans(
      (all) => all.some((span) => span.name === 'tools/call echo') && all.some((span) => span.kind === SpanKind.SERVER && span.attributes['http.request.method'] === 'POST'),
    )
    await mcp.close()
    const call = finished.find((span) => span.name === 'tools/call echo')!
    expect(call.attributes['mcp.method.name']).toBe('tools/call')
    expect(call.attributes['gen_ai.tool.name']).toBe('echo')
    const http = finished.find((span) => span.spanContext().spanId === parentOf(call))
    expect(http?.kind).toBe(SpanKind.SERVER)
    expect(http?.attributes['http.request.method']).toBe('POST')
    // called outside any span: the client sent no traceparent, the request's span is a root
    expect(parentOf(http!)).toBeUndefined()
    expect(JSON.stringify(finished.map((span) => span.attributes))).not.toContain('secret-looking')
  })

  it("passes the client's trace context on: the server's request span is a child of the client's span", async () => {
    const token = await clientCredentials()
    const tracer = trace.getTracer('the caller')
    const mcp = new McpClient({ name: 'tracing test', version: '1.0.0' })
    await mcp.connect(new StreamableHttpClientTransport(`${origin}/mcp`, { headers: { authorization: `Bearer ${token}` } }))
    exporter.reset()
    const outer = await tracer.startActiveSpan('the caller works', async (span) => {
      await mcp.callTool('echo', { text: 'hello' })
      span.end()
      return span
    })
    const finished = await spans((all) => all.some((span) => span.name === 'tools/call echo'))
    await mcp.close()
    const call = finished.find((span) => span.name === 'tools/call echo')!
    const http = finished.find((span) => span.spanContext().spanId === parentOf(call))!
    expect(http.spanContext().traceId).toBe(outer.spanContext().traceId)
    expect(parentOf(http)).toBe(outer.spanContext().spanId)
  })
})
