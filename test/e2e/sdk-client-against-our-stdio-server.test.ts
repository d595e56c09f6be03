/**
 * Interop: the official SDK client spawns `mcp-auth demo-server --stdio` (our server, built to
 * dist/) and exercises every feature. The SDK is a real peer here, never code under test.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI_PATH } from '../helpers/paths.js'

/** Make the SDK client ask for an older revision: rewrite the initialize request on its way out. */
function requestingVersion(transport: Transport, version: string): Transport {
  const send = transport.send.bind(transport)
  transport.send = (message, options) => {
    if ('method' in message && message.method === 'initialize' && message.params) {
      message = { ...message, params: { ...message.params, protocolVersion: version } }
    }
    return send(message, options)
  }
  return transport
}

let client: Client | undefined
afterEach(async () => {
  await client?.close()
  client = undefined
})

async function connect(version: string) {
  client = new Client({ name: 'sdk-peer', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } })
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
    role: 'assistant',
    model: 'test-model',
    content: { type: 'text', text: `echo: ${(request.params.messages[0]!.content as { text: string }).text}` },
  }))
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }))
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///workspace', name: 'workspace' }] }))
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'demo-server', '--stdio'], stderr: 'pipe' })
  await client.connect(requestingVersion(transport, version))
  return client
}

for (const version of ['2025-11-25', '2025-03-26']) {
  describe(`official SDK client ↔ our stdio demo server, negotiating ${version}`, () => {
    it('negotiates the version and sees the demo server’s capabilities', async () => {
      const c = await connect(version)
      expect(c.getServerVersion()).toMatchObject({ name: 'mcp-auth-demo' })
      expect(c.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true }, prompts: {}, logging: {}, completions: {} })
      // the SDK stores what the server answered on the transport only for HTTP; ask the server itself
      const { content } = await c.callTool({ name: 'echo', arguments: { text: version } })
      expect(content).toEqual([{ type: 'text', text: version }])
    })

    it('lists and calls tools, including structured output and tool errors', async () => {
      const c = await connect(version)
      const { tools } = await c.listTools()
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'slow_count', 'test_simple_text', 'test_error_handling']))
      const add = await c.callTool({ name: 'add', arguments: { a: 2, b: 40 } })
      expect(add.structuredContent).toEqual({ sum: 42 })
      const failing = await c.callTool({ name: 'test_error_handling', arguments: {} })
      expect(failing.isError).toBe(true)
      const image = await c.callTool({ name: 'test_image_content', arguments: {} })
      expect(image.content).toEqual([{ type: 'image', data: expect.any(String), mimeType: 'image/png' }])
    })

    it('lists, reads and subscribes to resources and templates', async () => {
      const c = await connect(version)
      const { resources } = await c.listResources()
      expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['test://static-text', 'test://static-binary', 'test://watched-resource']))
      const { resourceTemplates } = await c.listResourceTemplates()
      expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('test://template/{id}/data')
      const text = await c.readResource({ uri: 'test://static-text' })
      expect(text.contents[0]).toMatchObject({ text: 'This is the content of the static text resource.' })
      const templated = await c.readResource({ uri: 'test://template/7/data' })
      expect(JSON.parse((templated.contents[0] as { text: string }).text)).toMatchObject({ id: '7' })
      const updates: string[] = []
      c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updates.push(n.params.uri)
      })
      await c.subscribeResource({ uri: 'test://watched-resource' })
      await c.callTool({ name: 'touch_watched_resource', arguments: {} })
      await expect.poll(() => updates).toEqual(['test://watched-resource'])
    })

    it('gets prompts with arguments and completes them', async () => {
      const c = await connect(version)
      const { prompts } = await c.listPrompts()
      expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['test_simple_prompt', 'test_prompt_with_arguments', 'translate']))
      const prompt = await c.getPrompt({ name: 'translate', arguments: { language: 'French', text: 'hello' } })
      expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Translate into French:\n\nhello' })
      await expect(c.getPrompt({ name: 'translate', arguments: { language: 'French' } })).rejects.toThrow(/missing required argument text/)
      const completion = await c.complete({ ref: { type: 'ref/prompt', name: 'translate' }, argument: { name: 'language', value: 'fr' } })
      expect(completion.completion.values).toEqual(['French'])
    })

    it('sets the logging level and receives only log messages at or above it', async () => {
      const c = await connect(version)
      const levels: string[] = []
      c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        levels.push(n.params.level)
      })
      await c.setLoggingLevel('warning')
      await c.callTool({ name: 'test_tool_with_logging', arguments: {} })
      await c.setLoggingLevel('info')
      await c.callTool({ name: 'test_tool_with_logging', arguments: {} })
      expect(levels).toEqual(['info', 'info', 'info'])
    })

    it('receives progress and cancels a running tool', async () => {
      const c = await connect(version)
      const progress: number[] = []
      const result = await c.callTool({ name: 'slow_count', arguments: { steps: 3, delayMs: 50 } }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      })
      expect(result.content).toEqual([{ type: 'text', text: 'counted to 3' }])
      // the SDK client runs progress handlers a microtask late and drops those still queued once
      // the response is in: on a loaded machine the updates written just before the response can
      // arrive in the same read as it and be lost on the SDK's side, so what it saw is a prefix
      // of 1, 2, 3 (in order, none invented); the first one is 50 ms ahead of the response
      expect(progress.length).toBeGreaterThanOrEqual(1)
      expect(progress).toEqual([1, 2, 3].slice(0, progress.length))

      const controller = new AbortController()
      const slow = c.callTool({ name: 'slow_count', arguments: { steps: 100, delayMs: 50 } }, undefined, { signal: controller.signal })
      setTimeout(() => controller.abort('changed my mind'), 100)
      await expect(slow).rejects.toThrow()
      // the server is still healthy after the cancellation
      expect((await c.callTool({ name: 'echo', arguments: { text: 'still here' } })).content).toEqual([{ type: 'text', text: 'still here' }])
    })

    it('answers the server’s sampling, elicitation and roots requests', async () => {
      const c = await connect(version)
      const sampled = await c.callTool({ name: 'test_sampling', arguments: { prompt: 'Hi' } })
      expect(sampled.content).toEqual([{ type: 'text', text: 'LLM response: echo: Hi' }])
      const elicited = await c.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } })
      expect(elicited.content).toEqual([{ type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' }])
      const roots = await c.callTool({ name: 'list_roots', arguments: {} })
      expect(roots.content).toEqual([{ type: 'text', text: 'file:///workspace' }])
    })
  })
}
