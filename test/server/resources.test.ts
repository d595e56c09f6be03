import { describe, expect, it } from 'vitest'
import { ErrorCode } from '../../src/jsonrpc/index.js'
import { McpServer } from '../../src/server/mcp-server.js'
import { connectRawClient, flush } from './harness.js'

function serverWithResources(): McpServer {
  const server = new McpServer({ name: 't', version: '1' })
  server.registerResource({ uri: 'file:///a.txt', name: 'a', mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri, text: 'A' }] }))
  server.registerResource({ uri: 'file:///b.bin', name: 'b', mimeType: 'application/octet-stream' }, (uri) => ({
    contents: [{ uri, blob: Buffer.from([0, 1, 2]).toString('base64') }],
  }))
  server.registerResourceTemplate(
    { uriTemplate: 'users://{id}/profile', name: 'profile' },
    {
      read: (uri, { id }) => ({ contents: [{ uri, text: `profile of ${id}` }] }),
      list: () => [{ uri: 'users://1/profile', name: 'user 1' }],
      complete: { id: (value) => ['1', '12', '2'].filter((v) => v.startsWith(value)) },
    },
  )
  return server
}

describe('resources', () => {
  it('declares subscribe and listChanged', async () => {
    const server = serverWithResources()
    expect(server.capabilities.resources).toEqual({ subscribe: true, listChanged: true })
  })

  it('lists static resources and those a template lists', async () => {
    const { peer } = await connectRawClient(serverWithResources())
    const { resources } = await peer.request('resources/list')
    expect((resources as Array<{ uri: string }>).map((r) => r.uri)).toEqual(['file:///a.txt', 'file:///b.bin', 'users://1/profile'])
  })

  it('lists templates', async () => {
    const { peer } = await connectRawClient(serverWithResources())
    expect(await peer.request('resources/templates/list')).toEqual({ resourceTemplates: [{ uriTemplate: 'users://{id}/profile', name: 'profile' }] })
  })

  it('reads text, binary and templated resources', async () => {
    const { peer } = await connectRawClient(serverWithResources())
    expect(await peer.request('resources/read', { uri: 'file:///a.txt' })).toEqual({ contents: [{ uri: 'file:///a.txt', text: 'A' }] })
    expect(await peer.request('resources/read', { uri: 'file:///b.bin' })).toEqual({ contents: [{ uri: 'file:///b.bin', blob: 'AAEC' }] })
    expect(await peer.request('resources/read', { uri: 'users://a%20b/profile' })).toEqual({ contents: [{ uri: 'users://a%20b/profile', text: 'profile of a b' }] })
  })

  it('answers -32002 for a resource it does not have', async () => {
    const { peer } = await connectRawClient(serverWithResources())
    await expect(peer.request('resources/read', { uri: 'file:///missing' })).rejects.toMatchObject({ code: ErrorCode.ResourceNotFound, data: { uri: 'file:///missing' } })
  })

  it('sends resources/updated only to sessions subscribed to that uri, until they unsubscribe', async () => {
    const server = serverWithResources()
    const subscriber = await connectRawClient(server)
    const bystander = await connectRawClient(server)
    await subscriber.peer.request('resources/subscribe', { uri: 'users://7/profile' })
    await server.notifyResourceUpdated('users://7/profile')
    await server.notifyResourceUpdated('file:///a.txt')
    await flush()
    expect(subscriber.notifications).toEqual([{ method: 'notifications/resources/updated', params: { uri: 'users://7/profile' } }])
    expect(bystander.notifications).toEqual([])
    await subscriber.peer.request('resources/unsubscribe', { uri: 'users://7/profile' })
    await server.notifyResourceUpdated('users://7/profile')
    await flush()
    expect(subscriber.notifications).toHaveLength(1)
  })

  it('refuses a subscription to a resource it does not have', async () => {
    const { peer } = await connectRawClient(serverWithResources())
    await expect(peer.request('resources/subscribe', { uri: 'nothing://here' })).rejects.toMatchObject({ code: ErrorCode.ResourceNotFound })
  })

  it('sends resources/list_changed when a resource is removed', async () => {
    const server = serverWithResources()
    const extra = server.registerResource({ uri: 'x://1', name: 'x' }, (uri) => ({ contents: [{ uri, text: '' }] }))
    const { peer, notifications } = await connectRawClient(server)
    extra.remove()
    await flush()
    expect(notifications.map((n) => n.method)).toEqual(['notifications/resources/list_changed'])
    expect((await peer.request('resources/list')).resources).toHaveLength(3)
  })
})

describe('completion/complete', () => {
  it('completes a template variable', async () => {
    const { peer } = await connectRawClient(serverWithResources())
    const result = await peer.request('completion/complete', { ref: { type: 'ref/resource', uri: 'users://{id}/profile' }, argument: { name: 'id', value: '1' } })
    expect(result).toEqual({ completion: { values: ['1', '12'], total: 2, hasMore: false } })
  })

  it('returns at most 100 values with the total and hasMore', async () => {
    const server = new McpServer({ name: 't', version: '1' })
    const many = Array.from({ length: 250 }, (_, i) => `v${i}`)
    server.registerPrompt({ name: 'p', arguments: [{ name: 'x' }] }, () => ({ messages: [] }), { x: () => many })
    const { peer } = await connectRawClient(server)
    const result = await peer.request('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: '' } })
    const completion = result.completion as { values: string[]; total: number; hasMore: boolean }
    expect(completion.values).toHaveLength(100)
    expect(completion.total).toBe(250)
    expect(completion.hasMore).toBe(true)
  })

  it('passes the already-resolved arguments to the completer', async () => {
    const server = new McpServer({ name: 't', version: '1' })
    server.registerPrompt({ name: 'p', arguments: [{ name: 'a' }, { name: 'b' }] }, () => ({ messages: [] }), {
      b: (value, { arguments: resolved }) => [`${resolved.a}-${value}`],
    })
    const { peer } = await connectRawClient(server)
    const result = await peer.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'p' },
      argument: { name: 'b', value: 'x' },
      context: { arguments: { a: 'first' } },
    })
    expect(result).toEqual({ completion: { values: ['first-x'], total: 1, hasMore: false } })
  })

  it('refuses an unknown prompt or malformed ref with -32602', async () => {
    const { peer } = await connectRawClient(serverWithResources())
    await expect(peer.request('completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    })
    await expect(peer.request('completion/complete', { ref: { type: 'ref/other' }, argument: { name: 'a', value: '' } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
    await expect(peer.request('completion/complete', { ref: { type: 'ref/resource', uri: 'users://{id}/profile' } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
  })
})
