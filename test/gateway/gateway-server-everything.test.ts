/**
 * Issue 31, acceptance: a third-party stdio server, unmodified (server-everything, a
 * devDependency), behind the gateway: tools, resources, prompts, progress and a sampling and an
 * elicitation round trip on a stateful session, and the 2026-07-28 revision, which it does not speak.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGatewayStack, statelessRequest, type GatewayStack } from '../helpers/gateway-stack.js'
import { SERVER_EVERYTHING } from '../helpers/paths.js'

describe('server-everything behind the gateway', () => {
  let stack: GatewayStack
  beforeAll(async () => {
    stack = await startGatewayStack({ child: { command: SERVER_EVERYTHING } })
  })
  afterAll(() => stack.stop())

  it('lists and calls tools, reads a resource, gets a prompt, and relays sampling and elicitation', async () => {
    const client = await stack.connect(await stack.token(), (c) => {
      c.setSamplingHandler(async () => ({ role: 'assistant', content: { type: 'text', text: 'sampled through the gateway' }, model: 'test-model' }))
      c.setElicitationHandler(async () => ({ action: 'accept', content: { name: 'Ada' } }))
    })
    const tools = (await client.listTools()).tools.map((tool) => tool.name)
    expect(tools).toEqual(expect.arrayContaining(['echo', 'get-env', 'trigger-sampling-request', 'trigger-elicitation-request']))
    expect(await client.callTool({ name: 'echo', arguments: { message: 'hello' } })).toMatchObject({ content: [{ type: 'text', text: 'Echo: hello' }] })
    const env = JSON.parse(((await client.callTool({ name: 'get-env', arguments: {} })).content[0] as { text: string }).text)
    expect(env.MCP_AUTH_CLIENT_ID).toBeTruthy()
    expect(env.MCP_AUTH_SCOPE).toBe('mcp')

    const [resource] = (await client.listResources()).resources
    const read = await client.readResource(resource!.uri)
    expect(read.contents[0]!.uri).toBe(resource!.uri)
    const prompt = await client.getPrompt('simple-prompt')
    expect(prompt.messages.length).toBeGreaterThan(0)

    const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 10 } })
    expect(JSON.stringify(sampled.content)).toContain('sampled through the gateway')
    const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} })
    expect(JSON.stringify(elicited.content)).toContain('Ada')

    const progress: number[] = []
    await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      { onprogress: (p: { progress: number }) => progress.push(p.progress) },
    )
    expect(progress.length).toBe(3)
    await client.close()
  })

  it('serves a 2026-07-28 client from a child that speaks an older revision', async () => {
    const { body, headers } = statelessRequest(1, 'tools/call', { name: 'echo', arguments: { message: 'stateless' } })
    const answer = await stack.post(await stack.token(), body, headers)
    expect(answer.status).toBe(200)
    expect(answer.message.result).toMatchObject({ content: [{ type: 'text', text: 'Echo: stateless' }], resultType: 'complete' })
    const { body: removed, headers: removedHeaders } = statelessRequest(2, 'ping')
    const ping = await stack.post(await stack.token(), removed, removedHeaders)
    expect(ping.status).toBe(404)
    expect((ping.message.error as { code: number }).code).toBe(-32601)
  })
})
