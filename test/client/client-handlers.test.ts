import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it, vi } from 'vitest'
import { McpClient } from '../../src/client/mcp-client.js'
import { JsonRpcError } from '../../src/jsonrpc/index.js'
import type { CreateMessageParams, ElicitParams } from '../../src/schema/features.js'
import { createFakeServer } from './fake-server.js'
import { connectToSdkServer } from './sdk-peer.js'

const sdkServer = () => new McpServer({ name: 'sdk', version: '1' })

const nameSchema = {
  type: 'object' as const,
  properties: { name: { type: 'string' as const, minLength: 1 }, age: { type: 'integer' as const, minimum: 0 } },
  required: ['name'],
}

async function fakeServerClient(setup: (client: McpClient) => void | Promise<void>, capabilities = {}) {
  const fake = createFakeServer()
  const client = new McpClient({ name: 'c', version: '1' }, { capabilities })
  await setup(client)
  await client.connect(fake.clientTransport)
  return { client, server: fake.server, notifications: fake.notifications }
}

describe('sampling handler', () => {
  it('answers sampling/createMessage from the server', async () => {
    const server = sdkServer()
    const seen: CreateMessageParams[] = []
    const { client } = await connectToSdkServer(server, {}, (c) =>
      c.setSamplingHandler(async (params, context) => {
        seen.push(params)
        expect(context.signal.aborted).toBe(false)
        return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' }
      }),
    )
    const result = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 10 })
    expect(result).toMatchObject({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' })
    expect(seen[0]).toMatchObject({ maxTokens: 10, messages: [{ role: 'user' }] })
    await client.close()
  })

  it('answers -32601 when no sampling handler was set', async () => {
    const { server } = await fakeServerClient(() => {})
    await expect(server.request('sampling/createMessage', { messages: [], maxTokens: 1 })).rejects.toMatchObject({ code: -32601 })
  })

  it('answers -32601 when sampling is declared but no handler is set', async () => {
    const { server } = await fakeServerClient(() => {}, { sampling: {} })
    await expect(server.request('sampling/createMessage', { messages: [], maxTokens: 1 })).rejects.toMatchObject({ code: -32601 })
  })

  it('answers -32602 to a request without messages', async () => {
    const handler = vi.fn()
    const { server } = await fakeServerClient((c) => c.setSamplingHandler(handler))
    await expect(server.request('sampling/createMessage', { maxTokens: 1 })).rejects.toMatchObject({ code: -32602 })
    expect(handler).not.toHaveBeenCalled()
  })

  it('passes a JsonRpcError thrown by the handler to the server', async () => {
    const { server } = await fakeServerClient((c) =>
      c.setSamplingHandler(async () => {
        throw new JsonRpcError(-1, 'User rejected sampling request')
      }),
    )
    await expect(server.request('sampling/createMessage', { messages: [], maxTokens: 1 })).rejects.toMatchObject({ code: -1, message: 'User rejected sampling request' })
  })

  it('refuses to set a handler after connect when sampling was not declared', async () => {
    const { client } = await fakeServerClient(() => {})
    expect(() => client.setSamplingHandler(async () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }))).toThrow(
      expect.objectContaining({ code: 'invalid_state' }),
    )
  })
})

describe('elicitation handler', () => {
  it('answers a form elicitation with content that matches requestedSchema', async () => {
    const server = sdkServer()
    const seen: ElicitParams[] = []
    const { client } = await connectToSdkServer(server, {}, (c) =>
      c.setElicitationHandler(async (params) => {
        seen.push(params)
        return { action: 'accept', content: { name: 'Ada', age: 36 } }
      }),
    )
    const result = await server.server.elicitInput({ message: 'Who are you?', requestedSchema: nameSchema })
    expect(result).toEqual({ action: 'accept', content: { name: 'Ada', age: 36 } })
    expect(seen[0]).toMatchObject({ message: 'Who are you?', requestedSchema: nameSchema })
    await client.close()
  })

  it('refuses its own handler’s content when it breaks requestedSchema', async () => {
    const server = sdkServer()
    const { client } = await connectToSdkServer(server, {}, (c) => c.setElicitationHandler(async () => ({ action: 'accept', content: { age: -1 } })))
    const failure = await server.server.elicitInput({ message: 'Who are you?', requestedSchema: nameSchema }).catch((e: unknown) => e)
    expect(failure).toMatchObject({ code: -32603, message: expect.stringContaining('does not match requestedSchema') })
    await client.close()
  })

  it('passes decline and cancel through without checking content', async () => {
    const server = sdkServer()
    const { client } = await connectToSdkServer(server, {}, (c) => c.setElicitationHandler(async () => ({ action: 'decline' })))
    await expect(server.server.elicitInput({ message: 'Who?', requestedSchema: nameSchema })).resolves.toEqual({ action: 'decline' })
    await client.close()
  })

  it('answers -32603 when the handler returns an unknown action', async () => {
    const { server } = await fakeServerClient((c) => c.setElicitationHandler(async () => ({ action: 'maybe' }) as never))
    await expect(server.request('elicitation/create', { message: 'x', requestedSchema: nameSchema })).rejects.toMatchObject({ code: -32603 })
  })

  it('answers -32602 to URL mode when the client did not declare it', async () => {
    const handler = vi.fn()
    const { server } = await fakeServerClient((c) => c.setElicitationHandler(handler))
    await expect(server.request('elicitation/create', { mode: 'url', message: 'log in', url: 'https://example.com', elicitationId: 'e1' })).rejects.toMatchObject({ code: -32602 })
    expect(handler).not.toHaveBeenCalled()
  })

  it('hands URL mode to the handler when the client declared elicitation.url', async () => {
    const handler = vi.fn(async () => ({ action: 'accept' as const }))
    const { server } = await fakeServerClient((c) => c.setElicitationHandler(handler), { elicitation: { form: {}, url: {} } })
    await expect(server.request('elicitation/create', { mode: 'url', message: 'log in', url: 'https://example.com', elicitationId: 'e1' })).resolves.toEqual({ action: 'accept' })
    expect(handler).toHaveBeenCalledWith(expect.objectContaining({ mode: 'url', url: 'https://example.com' }), expect.anything())
  })

  it('answers -32602 to a form request without a requestedSchema', async () => {
    const { server } = await fakeServerClient((c) => c.setElicitationHandler(async () => ({ action: 'cancel' })))
    await expect(server.request('elicitation/create', { message: 'x' })).rejects.toMatchObject({ code: -32602 })
  })

  it('answers -32601 when no elicitation handler was set', async () => {
    const { server } = await fakeServerClient(() => {})
    await expect(server.request('elicitation/create', { message: 'x', requestedSchema: nameSchema })).rejects.toMatchObject({ code: -32601 })
  })
})

describe('roots', () => {
  it('answers roots/list with the roots set', async () => {
    const server = sdkServer()
    const { client } = await connectToSdkServer(server, {}, (c) => c.setRoots([{ uri: 'file:///work', name: 'work' }]))
    await expect(server.server.listRoots()).resolves.toEqual({ roots: [{ uri: 'file:///work', name: 'work' }] })
    await client.close()
  })

  it('sends notifications/roots/list_changed when the roots change after connect', async () => {
    const server = sdkServer()
    const changed = vi.fn()
    server.server.setNotificationHandler(RootsListChangedNotificationSchema, changed)
    const { client } = await connectToSdkServer(server, {}, (c) => c.setRoots([]))
    expect(changed).not.toHaveBeenCalled()
    await client.setRoots([{ uri: 'file:///new' }])
    await vi.waitFor(() => expect(changed).toHaveBeenCalledOnce())
    await expect(server.server.listRoots()).resolves.toEqual({ roots: [{ uri: 'file:///new' }] })
    await client.close()
  })

  it('answers with a copy, so editing the caller’s array later changes nothing', async () => {
    const roots = [{ uri: 'file:///a' }]
    const { server } = await fakeServerClient((c) => c.setRoots(roots))
    roots[0]!.uri = 'file:///b'
    await expect(server.request('roots/list')).resolves.toEqual({ roots: [{ uri: 'file:///a' }] })
  })

  it('does not notify when roots were declared without listChanged', async () => {
    const { client, server, notifications } = await fakeServerClient(() => {}, { roots: {} })
    await client.setRoots([{ uri: 'file:///x' }])
    await expect(server.request('roots/list')).resolves.toEqual({ roots: [{ uri: 'file:///x' }] })
    expect(notifications.map((n) => n.method)).not.toContain('notifications/roots/list_changed')
  })

  it('answers -32601 to roots/list when roots were never declared', async () => {
    const { client, server } = await fakeServerClient(() => {})
    await expect(server.request('roots/list')).rejects.toMatchObject({ code: -32601 })
    await expect(client.setRoots([{ uri: 'file:///x' }])).rejects.toMatchObject({ code: 'invalid_state' })
  })
})
