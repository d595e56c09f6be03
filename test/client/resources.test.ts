import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it, vi } from 'vitest'
import { connectToSdkServer } from './sdk-peer.js'

function resourceServer(options: { subscribe: boolean }) {
  const server = new McpServer({ name: 'sdk', version: '1' }, { capabilities: { resources: { subscribe: options.subscribe } } })
  server.registerResource('readme', 'mem://readme', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'read me' }],
  }))
  server.registerResource('user', new ResourceTemplate('mem://users/{id}', { list: undefined }), { description: 'a user' }, async (uri, { id }) => ({
    contents: [{ uri: uri.href, text: `user ${String(id)}` }],
  }))
  const subscriptions = new Set<string>()
  if (options.subscribe) {
    server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      subscriptions.add(request.params.uri)
      return {}
    })
    server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      subscriptions.delete(request.params.uri)
      return {}
    })
  }
  return { server, subscriptions }
}

describe('McpClient resources', () => {
  it('reads a resource', async () => {
    const { client } = await connectToSdkServer(resourceServer({ subscribe: false }).server)
    const { contents } = await client.readResource('mem://readme')
    expect(contents).toEqual([{ uri: 'mem://readme', mimeType: 'text/plain', text: 'read me' }])
    await client.close()
  })

  it('lists resource templates and reads through one', async () => {
    const { client } = await connectToSdkServer(resourceServer({ subscribe: false }).server)
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates).toEqual([expect.objectContaining({ name: 'user', uriTemplate: 'mem://users/{id}' })])
    const { contents } = await client.readResource('mem://users/42')
    expect(contents[0]).toMatchObject({ text: 'user 42' })
    await client.close()
  })

  it('rejects with the server’s -32002 (or -32602) for an unknown resource', async () => {
    const { client } = await connectToSdkServer(resourceServer({ subscribe: false }).server)
    const error = await client.readResource('mem://nope').catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'JsonRpcError' })
    expect([-32002, -32602]).toContain((error as { code: number }).code)
    await client.close()
  })

  it('subscribes, then emits resourceUpdated and notification for the resource', async () => {
    const { server, subscriptions } = resourceServer({ subscribe: true })
    const { client } = await connectToSdkServer(server)
    await client.subscribeResource('mem://readme')
    expect([...subscriptions]).toEqual(['mem://readme'])
    const notification = vi.fn()
    client.on('notification', notification)
    const updated = new Promise<{ uri: string }>((resolve) => client.once('resourceUpdated', resolve))
    await server.server.sendResourceUpdated({ uri: 'mem://readme' })
    await expect(updated).resolves.toMatchObject({ uri: 'mem://readme' })
    expect(notification).toHaveBeenCalledWith('notifications/resources/updated', { uri: 'mem://readme' })
    await client.unsubscribeResource('mem://readme')
    expect(subscriptions.size).toBe(0)
    await client.close()
  })

  it('refuses subscribeResource locally when the server did not declare resources.subscribe', async () => {
    const { client, clientTransport } = await connectToSdkServer(resourceServer({ subscribe: false }).server)
    const send = vi.spyOn(clientTransport, 'send')
    await expect(client.subscribeResource('mem://readme')).rejects.toMatchObject({ name: 'LocalError', code: 'capability_not_supported' })
    await expect(client.unsubscribeResource('mem://readme')).rejects.toMatchObject({ code: 'capability_not_supported' })
    expect(send).not.toHaveBeenCalled()
    await client.close()
  })

  it('emits resourcesListChanged when the server’s resource list changes', async () => {
    const { server } = resourceServer({ subscribe: false })
    const { client } = await connectToSdkServer(server)
    const changed = vi.fn()
    client.on('resourcesListChanged', changed)
    server.registerResource('late', 'mem://late', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'late' }] }))
    await vi.waitFor(() => expect(changed).toHaveBeenCalled())
    await client.close()
  })
})
