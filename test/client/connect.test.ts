import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { describe, expect, it, vi } from 'vitest'
import { McpClient } from '../../src/client/mcp-client.js'
import { LocalError } from '../../src/protocol/errors.js'
import type { Transport } from '../../src/protocol/transport.js'
import { createFakeServer } from './fake-server.js'
import { connectToSdkServer } from './sdk-peer.js'

const clientInfo = { name: 'test-client', version: '1.0.0' }

function sdkServer(): McpServer {
  return new McpServer({ name: 'sdk-server', version: '2.0.0' }, { instructions: 'be nice', capabilities: { logging: {} } })
}

describe('McpClient.connect', () => {
  it('negotiates 2025-11-25 with the SDK server by default and exposes what it declared', async () => {
    const { client } = await connectToSdkServer(sdkServer())
    expect(client.protocolVersion).toBe('2025-11-25')
    expect(client.serverInfo).toMatchObject({ name: 'sdk-server', version: '2.0.0' })
    expect(client.serverCapabilities).toHaveProperty('logging')
    expect(client.instructions).toBe('be nice')
    await client.close()
  })

  it('negotiates 2025-03-26 when the client asks for it', async () => {
    const { client } = await connectToSdkServer(sdkServer(), { protocolVersion: '2025-03-26' })
    expect(client.protocolVersion).toBe('2025-03-26')
    await client.close()
  })

  it('has no server information before connect', () => {
    const client = new McpClient(clientInfo)
    expect(client.serverCapabilities).toBeUndefined()
    expect(client.serverInfo).toBeUndefined()
    expect(client.protocolVersion).toBeUndefined()
    expect(client.instructions).toBeUndefined()
  })

  it('sends notifications/initialized after the initialize result', async () => {
    const server = sdkServer()
    const initialized = vi.fn()
    server.server.oninitialized = initialized
    const { client } = await connectToSdkServer(server)
    await vi.waitFor(() => expect(initialized).toHaveBeenCalledOnce())
    await client.close()
  })

  it('tells the transport the negotiated version', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await sdkServer().connect(serverSide)
    const transport = clientSide as unknown as Transport
    const setProtocolVersion = vi.fn()
    transport.setProtocolVersion = setProtocolVersion
    const client = new McpClient(clientInfo, { protocolVersion: '2025-06-18' })
    await client.connect(transport)
    expect(setProtocolVersion).toHaveBeenCalledWith('2025-06-18')
    await client.close()
  })

  it('refuses a server that answers an unsupported version, then closes the connection', async () => {
    const { clientTransport, notifications } = createFakeServer({ protocolVersion: '1999-01-01' })
    const client = new McpClient(clientInfo)
    const closed = vi.fn()
    client.on('close', closed)
    const error = await client.connect(clientTransport).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LocalError)
    expect((error as LocalError).code).toBe('unsupported_protocol_version')
    expect(closed).toHaveBeenCalledOnce()
    expect(client.protocolVersion).toBeUndefined()
    expect(notifications.map((n) => n.method)).not.toContain('notifications/initialized')
    await expect(client.ping()).rejects.toMatchObject({ code: 'not_connected' })
  })

  it('refuses a version outside supportedProtocolVersions even when the package speaks it', async () => {
    const { clientTransport } = createFakeServer({ protocolVersion: '2024-11-05' })
    const client = new McpClient(clientInfo, { supportedProtocolVersions: ['2025-11-25', '2025-06-18'] })
    await expect(client.connect(clientTransport)).rejects.toMatchObject({ code: 'unsupported_protocol_version' })
  })

  it('refuses an initialize result without serverInfo', async () => {
    const { server, clientTransport } = createFakeServer()
    server.setRequestHandler('initialize', (params) => ({ protocolVersion: params.protocolVersion, capabilities: {} }))
    await expect(new McpClient(clientInfo).connect(clientTransport)).rejects.toMatchObject({ code: 'invalid_response' })
  })

  it('gives up when the connect signal aborts before the server answers', async () => {
    const { server, clientTransport } = createFakeServer()
    server.setRequestHandler('initialize', () => new Promise(() => {}))
    const controller = new AbortController()
    const client = new McpClient(clientInfo)
    const connecting = client.connect(clientTransport, { signal: controller.signal })
    controller.abort()
    await expect(connecting).rejects.toMatchObject({ code: 'request_cancelled' })
  })

  it('refuses to connect twice', async () => {
    const { client } = await connectToSdkServer(sdkServer())
    const [other] = InMemoryTransport.createLinkedPair()
    await expect(client.connect(other as unknown as Transport)).rejects.toMatchObject({ code: 'invalid_state' })
    await client.close()
  })

  it('sends the declared capabilities and client info', async () => {
    const { clientTransport, initializeParams } = createFakeServer()
    const client = new McpClient(clientInfo, { capabilities: { experimental: { thing: {} } } })
    await client.connect(clientTransport)
    expect(initializeParams()).toMatchObject({
      protocolVersion: '2025-11-25',
      clientInfo,
      capabilities: { experimental: { thing: {} } },
    })
    expect(initializeParams()?.capabilities).not.toHaveProperty('sampling')
    await client.close()
  })

  it('declares sampling, elicitation and roots when their handlers are set before connect', async () => {
    const server = sdkServer()
    const { client } = await connectToSdkServer(server, {}, async (c) => {
      c.setSamplingHandler(async () => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }))
      c.setElicitationHandler(async () => ({ action: 'decline' }))
      await c.setRoots([{ uri: 'file:///tmp' }])
    })
    expect(server.server.getClientCapabilities()).toMatchObject({ sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } })
    await client.close()
  })

  it('can connect again after close', async () => {
    const { client } = await connectToSdkServer(sdkServer())
    await client.close()
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await sdkServer().connect(serverSide)
    await client.connect(clientSide as unknown as Transport)
    await expect(client.ping()).resolves.toBeUndefined()
    await client.close()
  })
})
