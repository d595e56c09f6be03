import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { McpClient } from '../../src/client/mcp-client.js'
import type { JsonRpcParams } from '../../src/jsonrpc/index.js'
import { createFakeServer } from './fake-server.js'
import { connectToSdkServer } from './sdk-peer.js'

const clientInfo = { name: 'test-client', version: '1.0.0' }
const capabilities = { tools: {}, resources: {}, prompts: {} }

/** Serve `items` under `field` two at a time, with cursors "p1", "p2", … */
function pages(field: string, items: object[], seen: Array<unknown>) {
  return (params: JsonRpcParams) => {
    seen.push(params.cursor)
    const offset = params.cursor === undefined ? 0 : Number(String(params.cursor).slice(1)) * 2
    const page = items.slice(offset, offset + 2)
    const next = offset + 2 < items.length ? { nextCursor: `p${offset / 2 + 1}` } : {}
    return { [field]: page, ...next }
  }
}

async function connected(setup: (server: ReturnType<typeof createFakeServer>['server']) => void) {
  const fake = createFakeServer({ capabilities })
  setup(fake.server)
  const client = new McpClient(clientInfo)
  await client.connect(fake.clientTransport)
  return client
}

describe('McpClient list methods', () => {
  it('listTools returns one page and its nextCursor', async () => {
    const tools = ['a', 'b', 'c'].map((name) => ({ name, inputSchema: { type: 'object' } }))
    const cursors: unknown[] = []
    const client = await connected((s) => s.setRequestHandler('tools/list', pages('tools', tools, cursors)))
    const first = await client.listTools()
    expect(first.tools.map((t) => t.name)).toEqual(['a', 'b'])
    expect(first.nextCursor).toBe('p1')
    const second = await client.listTools({ cursor: first.nextCursor! })
    expect(second.tools.map((t) => t.name)).toEqual(['c'])
    expect(second).not.toHaveProperty('nextCursor')
    expect(cursors).toEqual([undefined, 'p1'])
  })

  it('listAllTools follows cursors to the last page', async () => {
    const tools = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name, inputSchema: { type: 'object' } }))
    const cursors: unknown[] = []
    const client = await connected((s) => s.setRequestHandler('tools/list', pages('tools', tools, cursors)))
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(cursors).toEqual([undefined, 'p1', 'p2'])
  })

  it('listAllResources, listAllResourceTemplates and listAllPrompts follow cursors too', async () => {
    const resources = [1, 2, 3].map((i) => ({ uri: `mem://${i}`, name: `r${i}` }))
    const templates = [1, 2, 3].map((i) => ({ uriTemplate: `mem://{id}/${i}`, name: `t${i}` }))
    const prompts = [1, 2, 3].map((i) => ({ name: `p${i}` }))
    const client = await connected((s) => {
      s.setRequestHandler('resources/list', pages('resources', resources, []))
      s.setRequestHandler('resources/templates/list', pages('resourceTemplates', templates, []))
      s.setRequestHandler('prompts/list', pages('prompts', prompts, []))
    })
    expect(await client.listAllResources()).toEqual(resources)
    expect(await client.listAllResourceTemplates()).toEqual(templates)
    expect(await client.listAllPrompts()).toEqual(prompts)
  })

  it('stops with invalid_response when the server repeats a cursor', async () => {
    const handler = vi.fn((params: JsonRpcParams) => ({
      tools: [{ name: `t-${String(params.cursor)}`, inputSchema: { type: 'object' } }],
      nextCursor: params.cursor === undefined ? 'x' : params.cursor === 'x' ? 'y' : 'x',
    }))
    const client = await connected((s) => s.setRequestHandler('tools/list', handler))
    await expect(client.listAllTools()).rejects.toMatchObject({ code: 'invalid_response', message: expect.stringContaining('repeated') })
    expect(handler).toHaveBeenCalledTimes(3)
  })

  it('refuses a list result without its array', async () => {
    const client = await connected((s) => s.setRequestHandler('prompts/list', () => ({ prompt: [] })))
    await expect(client.listPrompts()).rejects.toMatchObject({ code: 'invalid_response' })
  })

  it('refuses a nextCursor that is not a string', async () => {
    const client = await connected((s) => s.setRequestHandler('resources/list', () => ({ resources: [], nextCursor: 7 })))
    await expect(client.listResources()).rejects.toMatchObject({ code: 'invalid_response' })
  })

  it('passes the request options (signal) to every page', async () => {
    const client = await connected((s) => s.setRequestHandler('tools/list', () => new Promise(() => {})))
    const controller = new AbortController()
    const listing = client.listAllTools({ signal: controller.signal })
    controller.abort()
    await expect(listing).rejects.toMatchObject({ code: 'request_cancelled' })
  })

  it('lists the SDK server’s tools, resources and prompts in one page', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    server.registerTool('echo', { description: 'echo', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }))
    server.registerResource('readme', 'mem://readme', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'hi' }] }))
    server.registerPrompt('greet', { argsSchema: { name: z.string() } }, ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `hi ${name}` } }] }))
    const { client } = await connectToSdkServer(server)
    const { tools, nextCursor } = await client.listTools()
    expect(nextCursor).toBeUndefined()
    expect(tools).toEqual([expect.objectContaining({ name: 'echo', inputSchema: expect.objectContaining({ type: 'object' }) })])
    expect((await client.listAllResources()).map((r) => r.uri)).toEqual(['mem://readme'])
    expect((await client.listAllPrompts())[0]).toMatchObject({ name: 'greet', arguments: [{ name: 'name', required: true }] })
    await client.close()
  })
})
