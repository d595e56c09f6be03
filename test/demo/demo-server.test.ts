import { afterEach, describe, expect, it } from 'vitest'
import { McpClient } from '../../src/client/index.js'
import { createDemoServer } from '../../src/demo/demo-server.js'
import { InMemoryTransport } from '../../src/transports/memory/in-memory-transport.js'

let client: McpClient
afterEach(async () => {
  await client?.close()
})

async function connect(): Promise<McpClient> {
  const server = createDemoServer()
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  client = new McpClient({ name: 'demo-test', version: '1' })
  client.setSamplingHandler(async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'sampled' } }))
  client.setElicitationHandler(async () => ({ action: 'decline' }))
  await client.setRoots([{ uri: 'file:///a' }, { uri: 'file:///b' }])
  await client.connect(clientSide)
  return client
}

describe('demo server', () => {
  it('offers every feature: tools, resources with subscribe, prompts, completions, logging', async () => {
    const c = await connect()
    expect(c.serverCapabilities).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    })
    expect(c.instructions).toMatch(/demo server/)
  })

  it('stops slow_count when the call is cancelled, and progress stops with it', async () => {
    const c = await connect()
    const progress: number[] = []
    const controller = new AbortController()
    const call = c.callTool('slow_count', { steps: 50, delayMs: 10 }, { signal: controller.signal, onprogress: (p) => progress.push(p.progress) })
    await expect.poll(() => progress.length).toBeGreaterThanOrEqual(2)
    controller.abort(new Error('stop'))
    await expect(call).rejects.toMatchObject({ code: 'request_cancelled' })
    const seen = progress.length
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(progress.length).toBe(seen)
    expect(seen).toBeLessThan(50)
  })

  it('notifies subscribers when the watched resource changes, and serves the new version', async () => {
    const c = await connect()
    const updates: string[] = []
    c.on('resourceUpdated', ({ uri }) => updates.push(uri))
    await c.subscribeResource('test://watched-resource')
    await c.callTool('touch_watched_resource')
    await expect.poll(() => updates).toEqual(['test://watched-resource'])
    expect((await c.readResource('test://watched-resource')).contents[0]).toMatchObject({ text: 'Watched resource content, version 1' })
  })

  it('completes the template id and the translate language', async () => {
    const c = await connect()
    const ids = await c.complete({ ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '4' } })
    expect(ids.completion.values).toEqual(['42'])
    const languages = await c.complete({ ref: { type: 'ref/prompt', name: 'translate' }, argument: { name: 'language', value: 'ja' } })
    expect(languages.completion).toEqual({ values: ['Japanese'], total: 1, hasMore: false })
  })

  it('samples, elicits and lists roots through the client', async () => {
    const c = await connect()
    expect((await c.callTool('test_sampling', { prompt: 'x' })).content).toEqual([{ type: 'text', text: 'LLM response: sampled' }])
    expect((await c.callTool('test_elicitation', { message: 'x' })).content).toEqual([{ type: 'text', text: 'User response: action=decline, content={}' }])
    expect((await c.callTool('list_roots')).content).toEqual([{ type: 'text', text: 'file:///a\nfile:///b' }])
  })

  it('returns image, audio, embedded resource and resource_link content', async () => {
    const c = await connect()
    const image = await c.callTool('test_image_content')
    expect(
      Buffer.from((image.content[0] as { data: string }).data, 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG')
    const audio = await c.callTool('test_audio_content')
    expect(
      Buffer.from((audio.content[0] as { data: string }).data, 'base64')
        .subarray(0, 4)
        .toString(),
    ).toBe('RIFF')
    expect((await c.callTool('test_embedded_resource')).content[0]).toMatchObject({ type: 'resource', resource: { uri: 'test://embedded-resource' } })
    expect((await c.callTool('test_resource_link')).content[0]).toMatchObject({ type: 'resource_link', uri: 'test://static-text' })
  })
})
