import { describe, expect, it } from 'vitest'
import { ErrorCode } from '../../src/jsonrpc/index.js'
import { McpServer } from '../../src/server/mcp-server.js'
import { connectRawClient } from './harness.js'

function serverWithPrompts(): McpServer {
  const server = new McpServer({ name: 't', version: '1' })
  server.registerPrompt({ name: 'greet', description: 'Greets', arguments: [{ name: 'name', required: true }, { name: 'tone' }] }, (args) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello ${args.name}${args.tone ? ` (${args.tone})` : ''}` } }],
  }))
  return server
}

describe('prompts', () => {
  it('lists prompts with their arguments', async () => {
    const { peer } = await connectRawClient(serverWithPrompts())
    expect(await peer.request('prompts/list')).toEqual({
      prompts: [{ name: 'greet', description: 'Greets', arguments: [{ name: 'name', required: true }, { name: 'tone' }] }],
    })
  })

  it('gets a prompt with its arguments filled in', async () => {
    const { peer } = await connectRawClient(serverWithPrompts())
    const result = await peer.request('prompts/get', { name: 'greet', arguments: { name: 'Ada', tone: 'warm' } })
    expect(result).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada (warm)' } }] })
  })

  it('refuses a missing required argument with -32602', async () => {
    const { peer } = await connectRawClient(serverWithPrompts())
    await expect(peer.request('prompts/get', { name: 'greet', arguments: { tone: 'dry' } })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/missing required argument name/),
    })
  })

  it('refuses an unknown prompt and non-string arguments with -32602', async () => {
    const { peer } = await connectRawClient(serverWithPrompts())
    await expect(peer.request('prompts/get', { name: 'nope' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
    await expect(peer.request('prompts/get', { name: 'greet', arguments: { name: 3 } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
    await expect(peer.request('prompts/get', { name: 'greet', arguments: 'x' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams })
  })
})
