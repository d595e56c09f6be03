// Issue 28, item 16: code written for the official SDK's McpServer and Client compiles (typecheck
// covers test/) and runs against ours with an import change: `registerTool(name, config, handler)`
// with zod (object or raw shape) or JSON Schema, and `callTool({ name, arguments })`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { McpClient, McpServer } from '../../src/index.js'
import { InMemoryTransport } from '../../src/transports/memory/index.js'

const server = new McpServer({ name: 'moved-from-the-sdk', version: '1.0.0' })

// SDK v2: a zod object, an output schema, annotations
server.registerTool(
  'calculate-bmi',
  {
    title: 'BMI Calculator',
    description: 'Calculate Body Mass Index',
    inputSchema: z.object({ weightKg: z.number(), heightM: z.number().positive() }),
    outputSchema: z.object({ bmi: z.number() }),
    annotations: { readOnlyHint: true },
  },
  async ({ weightKg, heightM }) => {
    const output = { bmi: weightKg / (heightM * heightM) }
    return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output }
  },
)

// SDK v1: a raw shape of zod fields, one optional, one with a default the handler sees applied
server.registerTool(
  'greet',
  { description: 'Greets', inputSchema: { name: z.string(), greeting: z.string().default('Hello'), shout: z.boolean().optional() } },
  async ({ name, greeting, shout }) => {
    const text = `${greeting.trim()}, ${name.trim()}`
    return { content: [{ type: 'text', text: shout === true ? text.toUpperCase() : text }] }
  },
)

// a check JSON Schema cannot carry: zod itself parses the arguments
server.registerTool('rename', { inputSchema: z.object({ to: z.string().refine((value) => value.trim() !== '', 'must not be blank') }) }, async ({ to }) => ({
  content: [{ type: 'text', text: to.trim() }],
}))

// plain JSON Schema in the SDK's form
server.registerTool(
  'add',
  { description: 'Adds', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
  async (args) => ({ content: [{ type: 'text', text: String((args['a'] as number) + (args['b'] as number)) }] }),
)

// no input schema: as in the SDK, the handler gets only the context
server.registerTool('now', { description: 'A fixed time' }, async (context) => ({
  content: [{ type: 'text', text: `2026-01-01 (${context.protocolVersion ?? 'no version'})` }],
}))

// ours, unchanged, beside them
server.registerTool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, async ({ text }) => ({
  content: [{ type: 'text', text: String(text) }],
}))

const client = new McpClient({ name: 'sdk-style-client', version: '1.0.0' })

beforeAll(async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  await client.connect(clientSide)
})
afterAll(async () => {
  await client.close()
})

const text = (result: { content: Array<{ type: string; text?: string }> }) => result.content[0]?.text

describe('the official SDK call shapes', () => {
  it('lists zod and raw-shape tools with JSON Schemas (required fields, defaults, output schema, annotations)', async () => {
    const { tools } = await client.listTools()
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))
    expect(byName['calculate-bmi']).toMatchObject({
      title: 'BMI Calculator',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: { weightKg: { type: 'number' }, heightM: { type: 'number' } }, required: ['weightKg', 'heightM'] },
      outputSchema: { type: 'object', properties: { bmi: { type: 'number' } }, required: ['bmi'] },
    })
    expect(byName['greet']?.inputSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, greeting: { type: 'string', default: 'Hello' }, shout: { type: 'boolean' } },
      required: ['name'],
    })
    expect(byName['now']?.inputSchema).toEqual({ type: 'object', properties: {} })
  })

  it('calls with callTool({ name, arguments }) and with callTool(name, args)', async () => {
    const bmi = await client.callTool({ name: 'calculate-bmi', arguments: { weightKg: 72, heightM: 1.8 } })
    expect(bmi.structuredContent).toEqual({ bmi: 72 / (1.8 * 1.8) })
    expect(text(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5')
    expect(text(await client.callTool('add', { a: 2, b: 3 }))).toBe('5')
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi')
  })

  it('hands the handler the parsed arguments (defaults applied) and only the context when there is no schema', async () => {
    expect(text(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } }))).toBe('Hello, Ada')
    expect(text(await client.callTool({ name: 'greet', arguments: { name: 'Ada', greeting: 'Hi', shout: true } }))).toBe('HI, ADA')
    expect(text(await client.callTool({ name: 'now' }))).toBe(`2026-01-01 (${client.protocolVersion})`)
  })

  it('refuses arguments the zod schema refuses, as a tool error naming the field', async () => {
    const result = await client.callTool({ name: 'calculate-bmi', arguments: { weightKg: 72, heightM: -1 } })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/heightM/)
    const blank = await client.callTool({ name: 'rename', arguments: { to: '   ' } })
    expect(blank.isError).toBe(true)
    expect(text(blank)).toBe('Invalid arguments for tool rename: to: must not be blank')
    expect(text(await client.callTool({ name: 'rename', arguments: { to: ' x ' } }))).toBe('x')
  })
})
