import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { describe, expect, it, vi } from 'vitest'
import { McpClient } from '../../src/client/mcp-client.js'
import { LocalError } from '../../src/protocol/errors.js'
import { createFakeServer } from './fake-server.js'
import { connectToSdkServer } from './sdk-peer.js'

async function fakeConnected(capabilities = { tools: {} }, protocolVersion?: string) {
  const fake = createFakeServer(protocolVersion === undefined ? { capabilities } : { capabilities, protocolVersion })
  const client = new McpClient({ name: 'c', version: '1' })
  await client.connect(fake.clientTransport)
  return { client, server: fake.server, transport: fake.clientTransport }
}

describe('McpClient.close', () => {
  it('rejects calls still waiting with connection_closed', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    server.registerTool('forever', {}, () => new Promise(() => {}))
    const { client } = await connectToSdkServer(server)
    const call = client.callTool('forever')
    await new Promise((resolve) => setTimeout(resolve, 10))
    await client.close()
    const error = await call.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LocalError)
    expect(error).toMatchObject({ code: 'connection_closed' })
  })

  it('emits close once, also when the server hangs up', async () => {
    const { client, server } = await fakeConnected()
    const closed = vi.fn()
    client.on('close', closed)
    await server.close()
    await vi.waitFor(() => expect(closed).toHaveBeenCalledOnce())
    await client.close()
    expect(closed).toHaveBeenCalledOnce()
  })

  it('refuses requests after close with not_connected', async () => {
    const { client } = await fakeConnected()
    await client.close()
    await expect(client.listTools()).rejects.toMatchObject({ code: 'not_connected' })
  })

  it('refuses requests before connect with not_connected', async () => {
    await expect(new McpClient({ name: 'c', version: '1' }).callTool('x')).rejects.toMatchObject({ code: 'not_connected' })
  })
})

describe('McpClient events', () => {
  it('emits notification for every server notification it knows, with typed shortcuts', async () => {
    const { client, server } = await fakeConnected()
    const seen: string[] = []
    client.on('notification', (method) => seen.push(method))
    const tools = vi.fn()
    client.on('toolsListChanged', tools)
    await server.notify('notifications/tools/list_changed')
    await server.notify('notifications/elicitation/complete', { elicitationId: 'e1' })
    await vi.waitFor(() => expect(seen).toEqual(['notifications/tools/list_changed', 'notifications/elicitation/complete']))
    expect(tools).toHaveBeenCalledOnce()
  })

  it('emits notification for a notification the spec does not define, with its params', async () => {
    const { client, server } = await fakeConnected()
    const seen: unknown[] = []
    client.on('notification', (method, params) => seen.push([method, params]))
    await server.notify('notifications/x-vendor/heartbeat', { beat: 3 })
    await vi.waitFor(() => expect(seen).toEqual([['notifications/x-vendor/heartbeat', { beat: 3 }]]))
  })

  it('emits error when an error listener exists', async () => {
    const { client, transport } = await fakeConnected()
    const onerror = vi.fn()
    client.onerror = onerror
    const errors: Error[] = []
    client.on('error', (error) => errors.push(error))
    transport.onmessage?.({ jsonrpc: '2.0', id: 999, result: {} })
    expect(errors).toHaveLength(1)
    expect(errors[0]!.message).toContain('unknown request id')
    expect(onerror).not.toHaveBeenCalled()
  })

  it('sends errors to onerror, never throwing, when nobody listens for error', async () => {
    const { client, transport } = await fakeConnected()
    const onerror = vi.fn()
    client.onerror = onerror
    expect(() => transport.onmessage?.({ jsonrpc: '2.0', id: 999, result: {} })).not.toThrow()
    expect(onerror).toHaveBeenCalledWith(expect.any(Error))
  })

  it('swallows errors quietly with neither an error listener nor onerror', async () => {
    const { transport } = await fakeConnected()
    expect(() => transport.onmessage?.({ jsonrpc: '2.0', id: 999, result: {} })).not.toThrow()
  })

  it('reports a throwing notification listener as an error instead of crashing', async () => {
    const { client, server } = await fakeConnected()
    const onerror = vi.fn()
    client.onerror = onerror
    client.on('toolsListChanged', () => {
      throw new Error('listener broke')
    })
    await server.notify('notifications/tools/list_changed')
    await vi.waitFor(() => expect(onerror).toHaveBeenCalledWith(expect.objectContaining({ message: 'listener broke' })))
  })

  it('accepts a batch of notifications on a 2025-03-26 session', async () => {
    const { client, server } = await fakeConnected({ tools: {} }, '2025-03-26')
    const seen: string[] = []
    client.on('notification', (method) => seen.push(method))
    await server.transport!.send([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' },
    ])
    await vi.waitFor(() => expect(seen).toEqual(['notifications/tools/list_changed', 'notifications/prompts/list_changed']))
  })

  it('ignores a batch on a 2025-11-25 session', async () => {
    const { client, server } = await fakeConnected()
    const seen = vi.fn()
    client.on('notification', seen)
    await server.transport!.send([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }])
    await client.ping()
    expect(seen).not.toHaveBeenCalled()
  })
})
