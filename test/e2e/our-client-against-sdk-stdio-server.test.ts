/**
 * Interop: our McpClient spawns a server built with the official SDK over stdio and exercises
 * every feature; the SDK server is the real peer.
 */
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { McpClient } from '../../src/client/index.js'
import { StdioClientTransport } from '../../src/transports/stdio/index.js'

const SDK_SERVER = fileURLToPath(new URL('../fixtures/sdk-everything-server.mjs', import.meta.url))

let client: McpClient | undefined
afterEach(async () => {
  await client?.close()
  client = undefined
})

async function connect(protocolVersion: string): Promise<McpClient> {
  client = new McpClient({ name: 'mcp-auth-interop', version: '1.0.0' }, { protocolVersion })
  client.setSamplingHandler(async (params) => ({
    role: 'assistant',
    model: 'test-model',
    content: { type: 'text', text: `echo ${(params.messages[0]!.content as { text: string }).text}` },
  }))
  client.setElicitationHandler(async () => ({ action: 'accept', content: { name: 'Grace' } }))
  await client.setRoots([{ uri: 'file:///project', name: 'project' }])
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SDK_SERVER], stderr: 'pipe' }))
  return client
}

for (const version of ['2025-11-25', '2025-03-26']) {
  describe(`our client ↔ official SDK stdio server, negotiating ${version}`, () => {
    it('negotiates the requested version', async () => {
      const c = await connect(version)
      expect(c.protocolVersion).toBe(version)
      expect(c.serverInfo).toMatchObject({ name: 'sdk-everything' })
    })

    it('lists and calls tools, validating structured output', async () => {
      const c = await connect(version)
      const tools = await c.listAllTools()
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'count', 'ask_model']))
      expect((await c.callTool('echo', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'hi' }])
      expect((await c.callTool('add', { a: 1, b: 2 })).structuredContent).toEqual({ sum: 3 })
    })

    it('reads resources and templates, completes a template variable, and hears resource updates', async () => {
      const c = await connect(version)
      const resources = await c.listAllResources()
      expect(resources.map((r) => r.uri)).toContain('demo://greeting')
      const templates = await c.listAllResourceTemplates()
      expect(templates.map((t) => t.uriTemplate)).toContain('demo://users/{id}')
      expect((await c.readResource('demo://greeting')).contents[0]).toMatchObject({ text: 'hello from the SDK' })
      expect((await c.readResource('demo://users/7')).contents[0]).toMatchObject({ text: '{"id":"7"}' })
      const completion = await c.complete({ ref: { type: 'ref/resource', uri: 'demo://users/{id}' }, argument: { name: 'id', value: '1' } })
      expect(completion.completion.values).toEqual(['1', '10'])
      const updated: string[] = []
      c.on('resourceUpdated', ({ uri }) => updated.push(uri))
      await c.subscribeResource('demo://greeting')
      await c.callTool('touch', { uri: 'demo://greeting' })
      await expect.poll(() => updated).toEqual(['demo://greeting'])
    })

    it('gets a prompt and completes its argument', async () => {
      const c = await connect(version)
      expect((await c.listAllPrompts()).map((p) => p.name)).toContain('greet')
      const prompt = await c.getPrompt('greet', { name: 'Ada' })
      expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Say hello to Ada' })
      const completion = await c.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } })
      expect(completion.completion.values).toEqual(['Ada', 'Alan'])
    })

    it('sets the log level and receives log messages as events', async () => {
      const c = await connect(version)
      const levels: string[] = []
      c.on('logging', ({ level }) => levels.push(level))
      await c.setLoggingLevel('info')
      await c.callTool('log_some')
      await expect.poll(() => levels).toEqual(['info', 'error'])
    })

    it('receives progress and cancels a running tool', async () => {
      const c = await connect(version)
      const progress: number[] = []
      const done = await c.callTool('count', { steps: 3, delayMs: 5 }, { onprogress: (p) => progress.push(p.progress) })
      expect(done.content).toEqual([{ type: 'text', text: 'counted 3' }])
      expect(progress).toEqual([1, 2, 3])
      const controller = new AbortController()
      const slow = c.callTool('count', { steps: 100, delayMs: 50 }, { signal: controller.signal })
      setTimeout(() => controller.abort(new Error('enough')), 100)
      await expect(slow).rejects.toMatchObject({ code: 'request_cancelled' })
      expect((await c.callTool('echo', { text: 'alive' })).content).toEqual([{ type: 'text', text: 'alive' }])
    })

    it('answers the SDK server’s sampling, elicitation and roots requests', async () => {
      const c = await connect(version)
      expect((await c.callTool('ask_model', { prompt: 'ping' })).content).toEqual([{ type: 'text', text: 'model said: echo ping' }])
      expect((await c.callTool('ask_user')).content).toEqual([{ type: 'text', text: 'accept:Grace' }])
      expect((await c.callTool('show_roots')).content).toEqual([{ type: 'text', text: 'file:///project' }])
    })
  })
}
