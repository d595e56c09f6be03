import type { ServerContext } from '../server/context.js'
import type { McpServer } from '../server/mcp-server.js'
import { RED_PIXEL_PNG_BASE64, SILENT_WAV_BASE64 } from './demo-assets.js'

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

/** The demo server's tools; names starting with test_ are the conformance suite's contract. */
export function registerDemoTools(server: McpServer): void {
  server.registerTool(
    {
      name: 'echo',
      title: 'Echo',
      description: 'Returns the text it is given.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => text(String(args.text)),
  )

  server.registerTool(
    {
      name: 'whoami',
      title: 'Who am I',
      description: 'Says who the access token was issued to: account name, subject, client and scopes (anonymous without one).',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (_args, context) => {
      const auth = context.authInfo
      const identity =
        auth === undefined
          ? { anonymous: true }
          : { username: auth.claims?.['preferred_username'], subject: auth.subject, clientId: auth.clientId, scopes: auth.scopes, name: auth.claims?.['name'] }
      return { content: [{ type: 'text', text: JSON.stringify(identity) }] }
    },
  )

  server.registerTool(
    {
      name: 'admin_stats',
      title: 'Server statistics (admin)',
      description: 'Reports process statistics. When the server is protected it needs the mcp:admin scope.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => text(JSON.stringify({ uptimeSeconds: Math.round(process.uptime()), rssBytes: process.memoryUsage().rss })),
  )

  server.registerTool(
    {
      name: 'add',
      title: 'Add two numbers',
      description: 'Adds a and b; the sum is also returned as structured output.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    (args) => {
      const sum = (args.a as number) + (args.b as number)
      return { content: [{ type: 'text', text: JSON.stringify({ sum }) }], structuredContent: { sum } }
    },
  )

  server.registerTool(
    {
      name: 'slow_count',
      title: 'Count slowly',
      description: 'Counts to `steps`, waiting `delayMs` between steps and reporting progress; stops when cancelled.',
      inputSchema: {
        type: 'object',
        properties: { steps: { type: 'integer', minimum: 1, maximum: 1000 }, delayMs: { type: 'integer', minimum: 0, maximum: 60000 } },
        required: ['steps'],
      },
    },
    async (args, context) => {
      const steps = args.steps as number
      const delayMs = (args.delayMs as number | undefined) ?? 100
      for (let step = 1; step <= steps; step++) {
        await sleep(delayMs, context.signal)
        await context.sendProgress(step, steps, `step ${step} of ${steps}`)
      }
      return text(`counted to ${steps}`)
    },
  )

  server.registerTool({ name: 'list_roots', title: 'List roots', description: "Lists the client's roots (roots/list)." }, async (_args, context) => {
    const { roots } = await context.listRoots()
    return text(roots.map((r) => r.uri).join('\n') || '(no roots)')
  })

  registerConformanceTools(server)
}

function registerConformanceTools(server: McpServer): void {
  server.registerTool({ name: 'test_simple_text', description: 'Tests simple text content response' }, () => text('This is a simple text response for testing.'))
  server.registerTool({ name: 'test_image_content', description: 'Tests image content response' }, () => ({
    content: [{ type: 'image', data: RED_PIXEL_PNG_BASE64, mimeType: 'image/png' }],
  }))
  server.registerTool({ name: 'test_audio_content', description: 'Tests audio content response' }, () => ({
    content: [{ type: 'audio', data: SILENT_WAV_BASE64, mimeType: 'audio/wav' }],
  }))
  server.registerTool({ name: 'test_embedded_resource', description: 'Tests embedded resource content response' }, () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  }))
  server.registerTool({ name: 'test_multiple_content_types', description: 'Tests response with multiple content types (text, image, resource)' }, () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: RED_PIXEL_PNG_BASE64, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
    ],
  }))
  server.registerTool({ name: 'test_resource_link', description: 'Tests a resource_link content response' }, () => ({
    content: [{ type: 'resource_link', uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain' }],
  }))
  server.registerTool({ name: 'test_tool_with_logging', description: 'Tests tool that emits log messages during execution' }, async (_args, context: ServerContext) => {
    await context.log('info', 'Tool execution started')
    await sleep(50, context.signal)
    await context.log('info', 'Tool processing data')
    await sleep(50, context.signal)
    await context.log('info', 'Tool execution completed')
    return text('Tool with logging executed successfully')
  })
  server.registerTool({ name: 'test_tool_with_progress', description: 'Tests tool that reports progress notifications' }, async (_args, context) => {
    for (const progress of [0, 50, 100]) {
      await context.sendProgress(progress, 100, `Completed step ${progress / 50 + 1} of 3`)
      if (progress < 100) await sleep(50, context.signal)
    }
    return text(String(context.progressToken ?? 'no progress token'))
  })
  server.registerTool({ name: 'test_error_handling', description: 'Tests error response handling' }, () => {
    throw new Error('This tool intentionally returns an error for testing')
  })
  server.registerTool(
    {
      name: 'test_sampling',
      description: 'Tests server-initiated sampling (LLM completion request)',
      inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
    },
    async (args, context) => {
      const result = await context.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }],
        maxTokens: 100,
      })
      const content = result.content as { type: string; text?: string }
      return text(`LLM response: ${content.type === 'text' ? content.text : JSON.stringify(content)}`)
    },
  )
  server.registerTool(
    {
      name: 'test_elicitation',
      description: 'Tests server-initiated elicitation (user input request)',
      inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
    },
    async (args, context) => {
      const result = await context.elicit({
        message: String(args.message),
        requestedSchema: {
          type: 'object',
          properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
          required: ['username', 'email'],
        },
      })
      return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`)
    },
  )
  const elicitationResult = (result: { action: string; content?: object }) =>
    text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`)
  server.registerTool(
    { name: 'test_elicitation_sep1034_defaults', description: 'Tests elicitation with default values for every primitive type (SEP-1034)' },
    async (_args, context) =>
      elicitationResult(
        await context.elicit({
          message: 'Please review and update the form fields with defaults',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', description: 'User name', default: 'John Doe' },
              age: { type: 'integer', description: 'User age', default: 30 },
              score: { type: 'number', description: 'User score', default: 95.5 },
              status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
              verified: { type: 'boolean', description: 'Verification status', default: true },
            },
          },
        }),
      ),
  )
  server.registerTool({ name: 'test_elicitation_sep1330_enums', description: 'Tests elicitation with every enum schema variant (SEP-1330)' }, async (_args, context) =>
    elicitationResult(
      await context.elicit({
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              description: 'Select one option with titles',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              description: 'Select one option (legacy)',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: { type: 'array', description: 'Select multiple options', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: {
              type: 'array',
              description: 'Select multiple options with titles',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
        },
      }),
    ),
  )
}
