/**
 * Interop over HTTP: the official SDK's Streamable HTTP client and its legacy SSE client talk to
 * our demo server (the Koa app from createMcpHttpApp) on 127.0.0.1.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createMcpHttpApp, type McpHttpApp } from '../../src/app/mcp-http-app.js'
import { createDemoServer } from '../../src/demo/demo-server.js'

let http: McpHttpApp
let listener: Server
let base: string
let client: Client | undefined

async function start(options: { stateless?: boolean; preferJsonResponse?: boolean } = {}) {
  http = createMcpHttpApp(createDemoServer(), { host: '127.0.0.1', ...options })
  listener = createServer(http.app.callback())
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`
}

beforeEach(() => {
  client = undefined
})

afterEach(async () => {
  await client?.close()
  await http.close()
  listener.closeAllConnections()
  await new Promise((resolve) => listener.close(resolve))
})

function sdkClient(): Client {
  client = new Client({ name: 'sdk-http-peer', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } })
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'sampled' } }))
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { username: 'u', email: 'e@example.com' } }))
  return client
}

describe('official SDK Streamable HTTP client ↔ our server', () => {
  for (const preferJsonResponse of [false, true]) {
    it(`calls tools, reads resources and gets prompts (${preferJsonResponse ? 'JSON' : 'SSE'} answers)`, async () => {
      await start({ preferJsonResponse })
      const c = sdkClient()
      const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`))
      await c.connect(transport)
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
      expect((await c.callTool({ name: 'echo', arguments: { text: 'over http' } })).content).toEqual([{ type: 'text', text: 'over http' }])
      expect((await c.readResource({ uri: 'test://static-text' })).contents[0]).toMatchObject({ text: 'This is the content of the static text resource.' })
      expect((await c.getPrompt({ name: 'test_simple_prompt' })).messages).toHaveLength(1)
      expect((await c.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).structuredContent).toEqual({ sum: 3 })
    })
  }

  it('receives progress, logging and server requests on the POST stream', async () => {
    await start()
    const c = sdkClient()
    await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
    const progress: number[] = []
    await c.callTool({ name: 'slow_count', arguments: { steps: 3, delayMs: 50 } }, undefined, { onprogress: (p) => progress.push(p.progress) })
    // the SDK drops progress still queued when the response lands in the same read: a prefix
    expect(progress.length).toBeGreaterThanOrEqual(1)
    expect(progress).toEqual([1, 2, 3].slice(0, progress.length))
    const levels: string[] = []
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      levels.push(n.params.level)
    })
    await c.callTool({ name: 'test_tool_with_logging', arguments: {} })
    expect(levels).toEqual(['info', 'info', 'info'])
    expect((await c.callTool({ name: 'test_sampling', arguments: { prompt: 'p' } })).content).toEqual([{ type: 'text', text: 'LLM response: sampled' }])
    const elicited = await c.callTool({ name: 'test_elicitation', arguments: { message: 'm' } })
    expect(elicited.content).toEqual([{ type: 'text', text: expect.stringContaining('action=accept') }])
  })

  it('gets resource updates on the standalone GET stream', async () => {
    await start()
    const c = sdkClient()
    await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
    const updates: string[] = []
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri)
    })
    await c.subscribeResource({ uri: 'test://watched-resource' })
    await expect.poll(() => http.streamable.sessionCount).toBe(1)
    await c.callTool({ name: 'touch_watched_resource', arguments: {} })
    await expect.poll(() => updates).toEqual(['test://watched-resource'])
  })

  it('ends the session with DELETE on terminateSession', async () => {
    await start()
    const c = sdkClient()
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`))
    await c.connect(transport)
    expect(http.streamable.sessionCount).toBe(1)
    await transport.terminateSession()
    expect(http.streamable.sessionCount).toBe(0)
  })

  it('works against the stateless mode', async () => {
    await start({ stateless: true, preferJsonResponse: true })
    const c = sdkClient()
    await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
    expect((await c.callTool({ name: 'echo', arguments: { text: 'stateless' } })).content).toEqual([{ type: 'text', text: 'stateless' }])
    expect((await c.listTools()).tools.length).toBeGreaterThan(5)
  })
})

describe('official SDK legacy SSE client ↔ our /sse endpoint', () => {
  it('connects through the endpoint event and calls tools', async () => {
    await start()
    const c = sdkClient()
    await c.connect(new SSEClientTransport(new URL(`${base}/sse`)))
    expect((await c.callTool({ name: 'echo', arguments: { text: 'legacy' } })).content).toEqual([{ type: 'text', text: 'legacy' }])
    expect((await c.callTool({ name: 'test_sampling', arguments: { prompt: 'q' } })).content).toEqual([{ type: 'text', text: 'LLM response: sampled' }])
    const { resources } = await c.listResources()
    expect(resources.length).toBeGreaterThan(2)
  })
})
