import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { describe, expect, it, vi } from 'vitest'
import type { LoggingMessageParams } from '../../src/schema/features.js'
import { connectToSdkServer } from './sdk-peer.js'

describe('McpClient logging', () => {
  it('sets the level and receives messages at or above it as logging events', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' }, { capabilities: { logging: {} } })
    const { client } = await connectToSdkServer(server)
    const messages: LoggingMessageParams[] = []
    client.on('logging', (params) => messages.push(params))
    await client.setLoggingLevel('warning')
    await server.sendLoggingMessage({ level: 'info', data: 'too quiet' })
    await server.sendLoggingMessage({ level: 'error', logger: 'db', data: { failed: true } })
    await vi.waitFor(() => expect(messages).toHaveLength(1))
    expect(messages[0]).toEqual({ level: 'error', logger: 'db', data: { failed: true } })
    await client.close()
  })

  it('is refused locally when the server did not declare logging', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    server.registerTool('t', {}, async () => ({ content: [] }))
    const { client } = await connectToSdkServer(server)
    await expect(client.setLoggingLevel('debug')).rejects.toMatchObject({ name: 'LocalError', code: 'capability_not_supported' })
    await client.close()
  })
})
