import { describe, expect, it } from 'vitest'
import { ErrorCode, JsonRpcError } from '../../src/jsonrpc/index.js'
import { McpServer } from '../../src/server/mcp-server.js'
import { connectRawClient, flush } from './harness.js'

function serverWithTools(): McpServer {
  const server = new McpServer({ name: 't', version: '1' })
  server.registerTool(
    {
      name: 'add',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      annotations: { readOnlyHint: true },
    },
    (args) => {
      const sum = (args.a as number) + (args.b as number)
      return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } }
    },
  )
  server.registerTool({ name: 'bad_output', outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }, () => ({
    content: [{ type: 'text', text: 'oops' }],
    structuredContent: { n: 'not a number' },
  }))
  server.registerTool({ name: 'throws' }, () => {
    throw new Error('disk on fire')
  })
  server.registerTool({ name: 'rpc_error' }, () => {
    throw new JsonRpcError(ErrorCode.UrlElicitationRequired, 'needs a URL elicitation', { elicitations: [] })
  })
  return server
}

describe('tools', () => {
  it('lists tools with their schemas and annotations', async () => {
    const { peer } = await connectRawClient(serverWithTools())
    const result = await peer.request('tools/list')
    const tools = result.tools as Array<{ name: string; inputSchema: object; annotations?: object }>
    expect(tools.map((t) => t.name)).toEqual(['add', 'bad_output', 'throws', 'rpc_error'])
    expect(tools[0]!.annotations).toEqual({ readOnlyHint: true })
    expect(tools[2]!.inputSchema).toEqual({ type: 'object', properties: {} })
  })

  it('returns text content and validated structuredContent', async () => {
    const { peer } = await connectRawClient(serverWithTools())
    const result = await peer.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })
    expect(result).toEqual({ content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } })
  })

  it('reports invalid arguments as a tool error result on 2025-11-25', async () => {
    const { peer } = await connectRawClient(serverWithTools(), { protocolVersion: '2025-11-25' })
    const result = await peer.request('tools/call', { name: 'add', arguments: { a: 'two' } })
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toMatch(/Invalid arguments for tool add/)
  })

  it('reports invalid arguments as -32602 before 2025-11-25', async () => {
    for (const protocolVersion of ['2025-06-18', '2025-03-26', '2024-11-05']) {
      const { peer } = await connectRawClient(serverWithTools(), { protocolVersion })
      await expect(peer.request('tools/call', { name: 'add', arguments: { a: 'two' } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
    }
  })

  it('refuses an unknown tool with -32602', async () => {
    const { peer } = await connectRawClient(serverWithTools())
    await expect(peer.request('tools/call', { name: 'nope' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringMatching(/unknown tool nope/) })
  })

  it('refuses a call without a tool name with -32602', async () => {
    const { peer } = await connectRawClient(serverWithTools())
    await expect(peer.request('tools/call', { arguments: {} })).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
  })

  it('turns an exception in the handler into an isError result', async () => {
    const { peer } = await connectRawClient(serverWithTools())
    const result = await peer.request('tools/call', { name: 'throws' })
    expect(result).toEqual({ content: [{ type: 'text', text: 'disk on fire' }], isError: true })
  })

  it('passes a JsonRpcError thrown by the handler through as a JSON-RPC error', async () => {
    const { peer } = await connectRawClient(serverWithTools())
    await expect(peer.request('tools/call', { name: 'rpc_error' })).rejects.toMatchObject({ code: ErrorCode.UrlElicitationRequired, data: { elicitations: [] } })
  })

  it('refuses structuredContent that does not match the outputSchema', async () => {
    const { peer } = await connectRawClient(serverWithTools())
    await expect(peer.request('tools/call', { name: 'bad_output' })).rejects.toMatchObject({
      code: ErrorCode.InternalError,
      message: expect.stringMatching(/does not match its outputSchema/),
    })
  })

  it('refuses to register a tool with an invalid name or a schema ajv cannot compile', () => {
    const server = new McpServer({ name: 't', version: '1' })
    expect(() => server.registerTool({ name: 'has space' }, () => ({ content: [] }))).toThrow(/invalid tool name/)
    expect(() => server.registerTool({ name: 'x', inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } }, () => ({ content: [] }))).toThrow()
  })

  it('sends tools/list_changed when a tool is added, changed, disabled or removed at run time', async () => {
    const server = serverWithTools()
    const { peer, notifications } = await connectRawClient(server)
    const extra = server.registerTool({ name: 'late' }, () => ({ content: [] }))
    await flush()
    expect((await peer.request('tools/list')).tools).toHaveLength(5)
    extra.disable()
    await flush()
    expect((await peer.request('tools/list')).tools).toHaveLength(4)
    extra.enable()
    extra.update({ description: 'now described' })
    extra.remove()
    await flush()
    expect(notifications.filter((n) => n.method === 'notifications/tools/list_changed')).toHaveLength(5)
    expect((await peer.request('tools/list')).tools).toHaveLength(4)
  })

  it('does not tell sessions that have not finished initializing about list changes', async () => {
    const server = serverWithTools()
    const { notifications } = await connectRawClient(server, { initialize: false })
    server.registerTool({ name: 'late' }, () => ({ content: [] }))
    await flush()
    expect(notifications).toEqual([])
  })

  it('paginates tools/list with opaque cursors and refuses a forged cursor', async () => {
    const server = new McpServer({ name: 't', version: '1' }, { pageSize: 2 })
    for (const name of ['a', 'b', 'c', 'd', 'e']) server.registerTool({ name }, () => ({ content: [] }))
    const { peer } = await connectRawClient(server)
    const names: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await peer.request('tools/list', cursor === undefined ? {} : { cursor })
      names.push(...(page.tools as Array<{ name: string }>).map((t) => t.name))
      cursor = page.nextCursor as string | undefined
      pages++
    } while (cursor !== undefined)
    expect(names).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(pages).toBe(3)
    await expect(peer.request('tools/list', { cursor: 'bm90LWEtY3Vyc29y' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
    await expect(peer.request('tools/list', { cursor: 42 })).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
  })
})
