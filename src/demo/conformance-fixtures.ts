import type { ServerContext } from '../server/context.js'
import type { McpServer } from '../server/mcp-server.js'

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

const askName = {
  message: 'What is your name?',
  requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] },
}

/**
 * The fixtures the conformance suite's 2026-07-28 scenarios call by name (multi-round input,
 * capability checks, list-change triggers). Registered after the demo's own tools so a person
 * browsing the list meets those first. Each is written once and works in every revision: before
 * 2026-07-28 its questions go to the client as requests, from it as input-required rounds.
 */
export function registerConformanceFixtures(server: McpServer): void {
  server.registerTool({ name: 'test_input_required_result_elicitation', description: 'Asks the user for their name (multi-round input)' }, async (_args, context) => {
    const answer = await context.elicit(askName, { key: 'user_name' })
    return text(`Hello, ${String(answer.content?.name ?? 'stranger')}!`)
  })
  server.registerTool({ name: 'test_input_required_result_sampling', description: "Asks the client's model a question (multi-round input)" }, async (_args, context) => {
    const answer = await context.createMessage(
      { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
      { key: 'capital_question' },
    )
    const content = answer.content as { type: string; text?: string }
    return text(`The model said: ${content.type === 'text' ? content.text : JSON.stringify(content)}`)
  })
  server.registerTool({ name: 'test_input_required_result_list_roots', description: "Reads the client's roots (multi-round input)" }, async (_args, context) => {
    const { roots } = await context.listRoots({ key: 'client_roots' })
    return text(`The client has ${roots.length} root(s): ${roots.map((root) => root.uri).join(', ')}`)
  })
  server.registerTool(
    { name: 'test_input_required_result_request_state', description: 'Asks for a confirmation and checks the round trip of its state' },
    async (_args, context) => {
      const answer = await context.elicit(
        { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
        { key: 'confirm' },
      )
      // reaching this line means the sealed requestState opened: it carried the request's identity
      return text(`state-ok: confirmed=${String(answer.content?.ok)}`)
    },
  )
  server.registerTool({ name: 'test_input_required_result_tampered_state', description: 'Asks for a confirmation; a tampered requestState is refused' }, async (_args, context) => {
    const answer = await context.elicit(
      { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
      { key: 'confirm' },
    )
    return text(`confirmed=${String(answer.content?.ok)}`)
  })
  server.registerTool({ name: 'test_input_required_result_multiple_inputs', description: 'Asks three questions in one round' }, async (_args, context) => {
    const [name, greeting, roots] = await Promise.all([
      context.elicit(askName, { key: 'user_name' }),
      context.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }, { key: 'greeting' }),
      context.listRoots({ key: 'client_roots' }),
    ])
    const said = greeting.content as { type: string; text?: string }
    return text(`${said.type === 'text' ? said.text : 'Hello'}, ${String(name.content?.name)} (${roots.roots.length} root(s))`)
  })
  server.registerTool({ name: 'test_input_required_result_multi_round', description: 'Asks two questions, one round after the other' }, async (_args, context) => {
    const step1 = await context.elicit({ ...askName, message: 'Step 1: What is your name?' }, { key: 'step1' })
    const step2 = await context.elicit(
      { message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } },
      { key: 'step2' },
    )
    return text(`${String(step1.content?.name)} likes ${String(step2.content?.color)}`)
  })
  server.registerTool(
    { name: 'test_input_required_result_capabilities', description: 'Asks only what the client declared it can answer' },
    async (_args, context: ServerContext) => {
      const caps = context.clientCapabilities
      const asked: Promise<unknown>[] = []
      if (caps.elicitation !== undefined) asked.push(context.elicit(askName, { key: 'user_name' }))
      if (caps.sampling !== undefined)
        asked.push(context.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 }, { key: 'hello' }))
      if (caps.roots !== undefined) asked.push(context.listRoots({ key: 'client_roots' }))
      await Promise.all(asked)
      return text(`answered ${asked.length} question(s)`)
    },
  )
  server.registerTool({ name: 'test_missing_capability', description: "Needs the client's sampling capability; refused without it" }, async (_args, context) => {
    const answer = await context.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'ping' } }], maxTokens: 10 }, { key: 'sample' })
    return text(`sampled: ${JSON.stringify(answer.content)}`)
  })
  server.registerTool(
    { name: 'test_streaming_elicitation', description: 'Elicits; the question travels in the result, never as a request on the stream' },
    async (_args, context) => {
      const answer = await context.elicit(askName, { key: 'user_name' })
      return text(`Hello, ${String(answer.content?.name)}!`)
    },
  )
  server.registerTool({ name: 'test_logging_tool', description: 'Logs at every step (only when the request asks for a log level)' }, async (_args, context) => {
    await context.log('info', 'step 1')
    await context.log('warning', 'step 2')
    return text('logged')
  })
  server.registerTool({ name: 'test_trigger_tool_change', description: 'Adds and removes a tool: list-changed notices go out' }, () => {
    server.registerTool({ name: 'test_transient_tool', description: 'Exists for a moment' }, () => text('transient')).remove()
    return text('the tool list changed')
  })
  server.registerTool({ name: 'test_trigger_prompt_change', description: 'Adds and removes a prompt: list-changed notices go out' }, () => {
    server.registerPrompt({ name: 'test_transient_prompt' }, () => ({ messages: [] })).remove()
    return text('the prompt list changed')
  })
  server.registerTool(
    {
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features (listed exactly as written)',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
    },
    (args) => text(`contact ${String(args.name ?? 'someone')} by ${String(args.contactMethod ?? 'email')}`),
  )
  server.registerTool(
    {
      name: 'test_mirrored_header',
      description: 'Mirrors its region parameter into the Mcp-Param-Region header (2026-07-28)',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', description: 'Where to run', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
        required: ['region'],
      },
    },
    (args) => text(`ran in ${String(args.region)}`),
  )
  server.registerPrompt({ name: 'test_input_required_result_prompt', description: 'A prompt that asks the user for context first (multi-round input)' }, async (_args, context) => {
    const answer = await context.elicit(
      { message: 'What context should the prompt use?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] } },
      { key: 'user_context' },
    )
    return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${String(answer.content?.context)}` } }] }
  })
}
