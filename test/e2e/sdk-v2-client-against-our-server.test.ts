/**
 * Interop with the official SDK v2 client (@modelcontextprotocol/client 2.4): pinned to
 * 2026-07-28 and in its auto mode, against our demo server over Streamable HTTP and over stdio.
 * Tools, resources, prompts, completion, an MRTR elicitation round and a subscription notice.
 */
import { Client, StreamableHTTPClientTransport, type VersionNegotiationMode } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createMcpHttpApp, type McpHttpApp } from '../../src/app/mcp-http-app.js'
import { createDemoServer } from '../../src/demo/demo-server.js'
import { CLI_PATH } from '../helpers/paths.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined)
})

async function startHttp(): Promise<{ url: URL; http: McpHttpApp }> {
  const http = createMcpHttpApp(createDemoServer(), { host: '127.0.0.1' })
  const listener: Server = createServer(http.handler)
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    await http.close()
    listener.closeAllConnections()
    await new Promise((resolve) => listener.close(resolve))
  })
  return { url: new URL(`http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`), http }
}

function sdkClient(mode: VersionNegotiationMode): Client {
  const client = new Client({ name: 'sdk-v2-peer', version: '2.4.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} }, versionNegotiation: { mode } })
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }))
  client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'Paris' } }))
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }))
  cleanups.push(() => client.close())
  return client
}

const transports = {
  http: async () => new StreamableHTTPClientTransport((await startHttp()).url),
  stdio: async () => new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'demo-server', '--stdio'], stderr: 'pipe' }),
}

for (const [name, makeTransport] of Object.entries(transports)) {
  for (const mode of [{ pin: '2026-07-28' }, 'auto'] as VersionNegotiationMode[]) {
    describe(`SDK v2 client (${JSON.stringify(mode)}) ↔ our demo server over ${name}`, () => {
      it('negotiates 2026-07-28 and uses tools, resources, prompts and completion', async () => {
        const client = sdkClient(mode)
        await client.connect(await makeTransport())
        expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
        expect(client.getProtocolEra()).toBe('modern')
        expect(client.getServerVersion()).toMatchObject({ name: 'mcp-auth-demo' })
        const { tools } = await client.listTools()
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'test_input_required_result_elicitation']))
        expect((await client.callTool({ name: 'echo', arguments: { text: 'v2' } })).content).toEqual([{ type: 'text', text: 'v2' }])
        const read = await client.readResource({ uri: 'test://static-text' })
        expect(read.contents[0]).toMatchObject({ text: 'This is the content of the static text resource.' })
        const prompt = await client.getPrompt({ name: 'translate', arguments: { language: 'French', text: 'hello' } })
        expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Translate into French:\n\nhello' })
        const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'translate' }, argument: { name: 'language', value: 'fr' } })
        expect(completion.completion.values).toEqual(['French'])
      })

      it('answers a multi-round elicitation through its elicitation handler', async () => {
        const client = sdkClient(mode)
        await client.connect(await makeTransport())
        const result = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} })
        expect(result.content).toEqual([{ type: 'text', text: 'Paris, Ada (1 root(s))' }])
      })

      it('receives a resource update on a subscriptions/listen stream', async () => {
        const client = sdkClient(mode)
        await client.connect(await makeTransport())
        const updates: string[] = []
        client.setNotificationHandler('notifications/resources/updated', (n) => {
          updates.push(n.params.uri)
        })
        const subscription = await client.listen({ resourceSubscriptions: ['test://watched-resource'] })
        expect(subscription.honoredFilter.resourceSubscriptions).toEqual(['test://watched-resource'])
        await client.callTool({ name: 'touch_watched_resource', arguments: {} })
        await expect.poll(() => updates).toEqual(['test://watched-resource'])
        await subscription.close()
      })
    })
  }
}
