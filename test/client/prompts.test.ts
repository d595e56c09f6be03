import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { completable } from '@modelcontextprotocol/sdk/server/completable.js'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { connectToSdkServer } from './sdk-peer.js'

function promptServer() {
  const server = new McpServer({ name: 'sdk', version: '1' })
  server.registerPrompt(
    'greet',
    {
      description: 'greets someone',
      argsSchema: { name: completable(z.string(), (value) => ['alice', 'albert', 'bob'].filter((n) => n.startsWith(value))) },
    },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }),
  )
  return server
}

describe('McpClient prompts', () => {
  it('gets a prompt with arguments', async () => {
    const { client } = await connectToSdkServer(promptServer())
    const result = await client.getPrompt('greet', { name: 'Ada' })
    expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }])
    await client.close()
  })

  it('rejects with the server’s error when a required argument is missing', async () => {
    const { client } = await connectToSdkServer(promptServer())
    await expect(client.getPrompt('greet')).rejects.toMatchObject({ name: 'JsonRpcError', code: -32602 })
    await client.close()
  })

  it('emits promptsListChanged when the server’s prompt list changes', async () => {
    const server = promptServer()
    const { client } = await connectToSdkServer(server)
    const changed = vi.fn()
    client.on('promptsListChanged', changed)
    server.registerPrompt('late', {}, () => ({ messages: [] }))
    await vi.waitFor(() => expect(changed).toHaveBeenCalled())
    await client.close()
  })
})

describe('McpClient.complete', () => {
  it('returns the server’s completion values for a prompt argument', async () => {
    const { client } = await connectToSdkServer(promptServer())
    const { completion } = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'al' } })
    expect(completion.values).toEqual(['alice', 'albert'])
    await client.close()
  })

  it('is refused locally when the server did not declare completions', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    server.registerTool('t', {}, async () => ({ content: [] }))
    const { client } = await connectToSdkServer(server)
    await expect(client.complete({ ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: '' } })).rejects.toMatchObject({
      name: 'LocalError',
      code: 'capability_not_supported',
    })
    await expect(client.listPrompts()).rejects.toMatchObject({ code: 'capability_not_supported' })
    await client.close()
  })
})
