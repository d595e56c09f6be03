/**
 * Interop: our McpClient against a server built with the official SDK v2 (@modelcontextprotocol/server
 * 2.4), over Streamable HTTP (its createMcpHandler on node:http) and over stdio (its serveStdio),
 * in its strict `legacy: 'reject'` mode (2026-07-28 only) and in its default mode (2025-era
 * clients served too). Tools, resources, prompts, an MRTR elicitation round, a -32022 for a
 * pinned handshake revision, and a list-change notice on the listen stream.
 */
import { createMcpHandler } from '@modelcontextprotocol/server'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { McpClient } from '../../src/client/mcp-client.js'
import type { Transport } from '../../src/protocol/transport.js'
import { StdioClientTransport } from '../../src/transports/stdio/index.js'
import { StreamableHttpClientTransport } from '../../src/transports/http-client/index.js'
// @ts-expect-error -- a plain ES module fixture, shared with the stdio child
import { createSdkV2Server } from '../fixtures/sdk-v2-server.mjs'
import { listenOnLoopback } from '../helpers/listen.js'

const FIXTURE = fileURLToPath(new URL('../fixtures/sdk-v2-server.mjs', import.meta.url))
const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined)
})

type Legacy = 'reject' | 'default'

async function httpServer(legacy: Legacy) {
  const handler = createMcpHandler(createSdkV2Server, legacy === 'reject' ? { legacy: 'reject' } : {})
  const server = await listenOnLoopback(toNodeHandler(handler) as never)
  closers.push(async () => {
    await handler.close()
    await server.close()
  })
  return { url: `${server.url}/mcp`, handler }
}

function stdio(legacy: Legacy): Transport {
  return new StdioClientTransport({ command: process.execPath, args: legacy === 'reject' ? [FIXTURE, '--legacy', 'reject'] : [FIXTURE], stderr: 'pipe' })
}

async function connect(transport: Transport, options: ConstructorParameters<typeof McpClient>[1] = {}, setup?: (client: McpClient) => void) {
  const client = new McpClient({ name: 'our-client', version: '1.0.0' }, options)
  client.setElicitationHandler(async () => ({ action: 'accept', content: { name: 'Ada' } }))
  setup?.(client)
  closers.push(() => client.close())
  await client.connect(transport)
  return client
}

async function exercise(client: McpClient): Promise<void> {
  expect(client.protocolVersion).toBe('2026-07-28')
  expect(client.serverInfo).toMatchObject({ name: 'sdk-v2-server' })
  expect((await client.callTool('echo', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'hi' }])
  // the server checks Mcp-Param-Region against the argument: called before any listing, the
  // client learns the tool's schema from the -32020 refusal and sends the header
  expect((await client.callTool('weather', { region: 'eu-west' })).content).toEqual([{ type: 'text', text: 'sunny in eu-west' }])
  expect((await client.callTool('greet', {})).content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])
  expect((await client.listAllTools()).map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'weather', 'greet']))
  expect((await client.callTool('weather', { region: 'Zürich ' })).content).toEqual([{ type: 'text', text: 'sunny in Zürich ' }])
  expect((await client.readResource('test://readme')).contents).toEqual([expect.objectContaining({ uri: 'test://readme', text: 'read me' })])
  expect((await client.getPrompt('hello', { who: 'world' })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello world' } }])
}

describe.each<Legacy>(['reject', 'default'])('our client ↔ SDK v2 server (%s mode)', (legacy) => {
  it('speaks 2026-07-28 over Streamable HTTP: tools, an input round, resources, prompts', async () => {
    const { url } = await httpServer(legacy)
    await exercise(await connect(new StreamableHttpClientTransport(url)))
  })

  it('speaks 2026-07-28 over stdio', async () => {
    await exercise(await connect(stdio(legacy), { listenForChanges: false }))
  })

  it('hears a list change on its listen stream over HTTP', async () => {
    const { url, handler } = await httpServer(legacy)
    let acknowledged!: Promise<void>
    const client = await connect(new StreamableHttpClientTransport(url), {}, (c) => {
      acknowledged = new Promise((resolve) => c.on('notification', (method) => method === 'notifications/subscriptions/acknowledged' && resolve()))
    })
    await acknowledged
    const changed = new Promise<void>((resolve) => client.once('toolsListChanged', resolve))
    handler.notify.toolsChanged()
    await changed
  })
})

describe('our client pinned to a handshake revision against SDK v2 servers', () => {
  it('is served in the default mode', async () => {
    const { url } = await httpServer('default')
    const client = await connect(new StreamableHttpClientTransport(url), { protocolVersion: '2025-11-25' })
    expect(client.protocolVersion).toBe('2025-11-25')
    expect((await client.callTool('echo', { text: 'old' })).content).toEqual([{ type: 'text', text: 'old' }])
  })

  it('is refused by the strict mode', async () => {
    const { url } = await httpServer('reject')
    const client = new McpClient({ name: 'our-client', version: '1.0.0' }, { protocolVersion: '2025-11-25' })
    await expect(client.connect(new StreamableHttpClientTransport(url))).rejects.toThrow()
  })
})
