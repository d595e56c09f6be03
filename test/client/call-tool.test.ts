import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { McpClient } from '../../src/client/mcp-client.js'
import { JsonRpcError } from '../../src/jsonrpc/index.js'
import type { ProgressParams } from '../../src/schema/features.js'
import { createFakeServer } from './fake-server.js'
import { connectToSdkServer } from './sdk-peer.js'

function toolServer() {
  const server = new McpServer({ name: 'sdk', version: '1' })
  server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }))
  server.registerTool('fail', {}, async () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }))
  server.registerTool('weather', { inputSchema: { city: z.string() }, outputSchema: { temperature: z.number(), city: z.string() } }, async ({ city }) => ({
    content: [{ type: 'text', text: `${city}: 21` }],
    structuredContent: { temperature: 21, city },
  }))
  return server
}

describe('McpClient.callTool', () => {
  it('returns the text content of a tool result', async () => {
    const { client } = await connectToSdkServer(toolServer())
    const result = await client.callTool('add', { a: 2, b: 3 })
    expect(result.content).toEqual([{ type: 'text', text: '5' }])
    expect(result.isError).toBeFalsy()
    await client.close()
  })

  it('returns a tool error as a result with isError, not a rejection', async () => {
    const { client } = await connectToSdkServer(toolServer())
    const result = await client.callTool('fail')
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'it broke' }] })
    await client.close()
  })

  it('rejects with the server’s JsonRpcError when the protocol call itself fails', async () => {
    const { server, clientTransport } = createFakeServer({ capabilities: { tools: {} } })
    server.setRequestHandler('tools/call', () => {
      throw new JsonRpcError(-32602, 'Unknown tool: nope')
    })
    const client = new McpClient({ name: 'c', version: '1' })
    await client.connect(clientTransport)
    const error = await client.callTool('nope').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(JsonRpcError)
    expect(error).toMatchObject({ code: -32602, message: 'Unknown tool: nope' })
  })

  it('accepts structuredContent that matches the outputSchema of a listed tool', async () => {
    const { client } = await connectToSdkServer(toolServer())
    const { tools } = await client.listTools()
    expect(tools.find((t) => t.name === 'weather')?.outputSchema).toBeDefined()
    const result = await client.callTool('weather', { city: 'Oslo' })
    expect(result.structuredContent).toEqual({ temperature: 21, city: 'Oslo' })
    await client.close()
  })

  describe('against a server that breaks its own outputSchema', () => {
    const outputSchema = { type: 'object', properties: { temperature: { type: 'number' } }, required: ['temperature'] }

    async function connect(callResult: object) {
      const { server, clientTransport } = createFakeServer({ capabilities: { tools: {} } })
      server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'weather', inputSchema: { type: 'object' }, outputSchema }] }))
      server.setRequestHandler('tools/call', () => callResult)
      const client = new McpClient({ name: 'c', version: '1' })
      await client.connect(clientTransport)
      return { client, server }
    }

    it('refuses mismatching structuredContent with a local invalid_response error', async () => {
      const { client } = await connect({ content: [], structuredContent: { temperature: 'warm' } })
      await client.listTools()
      await expect(client.callTool('weather')).rejects.toMatchObject({ name: 'LocalError', code: 'invalid_response', message: expect.stringContaining('outputSchema') })
    })

    it('refuses a result without structuredContent', async () => {
      const { client } = await connect({ content: [{ type: 'text', text: 'warm' }] })
      await client.listTools()
      await expect(client.callTool('weather')).rejects.toMatchObject({ code: 'invalid_response' })
    })

    it('does not check an isError result', async () => {
      const { client } = await connect({ content: [{ type: 'text', text: 'down' }], isError: true })
      await client.listTools()
      await expect(client.callTool('weather')).resolves.toMatchObject({ isError: true })
    })

    it('does not check a tool it never listed', async () => {
      const { client } = await connect({ content: [], structuredContent: { temperature: 'warm' } })
      await expect(client.callTool('weather')).resolves.toMatchObject({ structuredContent: { temperature: 'warm' } })
    })

    it('forgets output schemas when the server says the tool list changed', async () => {
      const { client, server } = await connect({ content: [], structuredContent: { temperature: 'warm' } })
      await client.listTools()
      const changed = new Promise((resolve) => client.once('toolsListChanged', () => resolve(undefined)))
      await server.notify('notifications/tools/list_changed')
      await changed
      await expect(client.callTool('weather')).resolves.toBeDefined()
    })
  })

  it('refuses a result without a content array', async () => {
    const { server, clientTransport } = createFakeServer({ capabilities: { tools: {} } })
    server.setRequestHandler('tools/call', () => ({ structuredContent: {} }))
    const client = new McpClient({ name: 'c', version: '1' })
    await client.connect(clientTransport)
    await expect(client.callTool('x')).rejects.toMatchObject({ code: 'invalid_response' })
  })

  it('delivers progress notifications to onprogress', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    server.registerTool('slow', {}, async (extra) => {
      const progressToken = extra._meta?.progressToken
      if (progressToken !== undefined) {
        for (const progress of [1, 2]) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: 2, message: `step ${progress}` } })
        }
      }
      return { content: [{ type: 'text', text: 'done' }] }
    })
    const { client } = await connectToSdkServer(server)
    const updates: ProgressParams[] = []
    const result = await client.callTool('slow', {}, { onprogress: (p) => updates.push(p) })
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(updates.map(({ progress, total, message }) => ({ progress, total, message }))).toEqual([
      { progress: 1, total: 2, message: 'step 1' },
      { progress: 2, total: 2, message: 'step 2' },
    ])
    await client.close()
  })

  it('cancels the server’s handler when the AbortSignal fires', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    const serverSawAbort = new Promise<string>((resolve) => {
      server.registerTool('wait', {}, (extra) => {
        started()
        return new Promise((_, reject) => {
          extra.signal.addEventListener('abort', () => {
            resolve(String(extra.signal.reason))
            reject(new Error('aborted'))
          })
        })
      })
    })
    const { client } = await connectToSdkServer(server)
    const controller = new AbortController()
    const call = client.callTool('wait', {}, { signal: controller.signal })
    await running
    controller.abort(new Error('user gave up'))
    await expect(call).rejects.toMatchObject({ code: 'request_cancelled' })
    await expect(serverSawAbort).resolves.toContain('user gave up')
    await client.close()
  })

  it('times out with request_timeout after timeoutMs', async () => {
    const { server, clientTransport } = createFakeServer({ capabilities: { tools: {} } })
    server.setRequestHandler('tools/call', () => new Promise(() => {}))
    const client = new McpClient({ name: 'c', version: '1' })
    await client.connect(clientTransport)
    await expect(client.callTool('slow', {}, { timeoutMs: 20 })).rejects.toMatchObject({ code: 'request_timeout' })
  })

  it('uses the client-wide requestTimeoutMs', async () => {
    const { server, clientTransport } = createFakeServer({ capabilities: { tools: {} } })
    const seen = vi.fn()
    server.setRequestHandler('tools/call', (_params, context) => new Promise(() => context.signal.addEventListener('abort', seen)))
    const client = new McpClient({ name: 'c', version: '1' }, { requestTimeoutMs: 20 })
    await client.connect(clientTransport)
    await expect(client.callTool('slow')).rejects.toMatchObject({ code: 'request_timeout' })
    await vi.waitFor(() => expect(seen).toHaveBeenCalled())
  })
})
