import { createDemoServer } from '../../demo/demo-server.js'
import { StdioServerTransport } from '../../transports/stdio/index.js'
import { UsageError, type Command } from '../command.js'

export const demoServerCommand: Command = {
  name: 'demo-server',
  summary: 'run the demo MCP server',
  usage: `
Usage: mcp-auth demo-server --stdio

Runs the demo MCP server (every MCP feature: tools with progress, cancellation, sampling,
elicitation and structured output; resources; prompts; completion; logging).

Options:
  --stdio       speak MCP on stdin/stdout (logs go to stderr)
  -h, --help    show this help
`,
  options: {
    stdio: { type: 'boolean' },
  },
  async run(values) {
    if (values.stdio !== true) throw new UsageError('choose a transport: --stdio')
    const server = createDemoServer()
    server.onerror = (error) => process.stderr.write(`mcp-auth demo-server: ${error.message}\n`)
    const transport = new StdioServerTransport()
    const session = await server.connect(transport)
    await new Promise<void>((resolve) => {
      const previous = session.onclose
      session.onclose = () => {
        previous?.()
        resolve()
      }
    })
    return 0
  },
}
