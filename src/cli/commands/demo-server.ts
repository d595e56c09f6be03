import { createMcpHttpApp } from '../../app/mcp-http-app.js'
import { defaults } from '../../config/defaults.js'
import { createDemoServer } from '../../demo/demo-server.js'
import { StdioServerTransport } from '../../transports/stdio/index.js'
import { parsePort, type Command } from '../command.js'
import { listen, untilSignal } from '../serve.js'

export const demoServerCommand: Command = {
  name: 'demo-server',
  summary: 'run the demo MCP server (stdio, or HTTP on every transport)',
  usage: `
Usage: mcp-auth demo-server --stdio
       mcp-auth demo-server [--host 127.0.0.1] [--port 0] [--stateless] [--json]

Runs the demo MCP server (every MCP feature: tools with progress, cancellation, sampling,
elicitation and structured output; resources; prompts; completion; logging).

Over HTTP it serves every transport on one origin: Streamable HTTP at /mcp, the legacy
2024-11-05 HTTP+SSE pair at /sse (+ /messages), and stateless JSON at /rest. It prints
"listening on <url>" once it accepts connections.

Options:
  --stdio                speak MCP on stdin/stdout (logs go to stderr)
  --host HOST            interface to bind (default ${defaults.cli.host}; loopback unless you mean it)
  --port PORT            port to listen on (default ${defaults.cli.port}: an ephemeral port)
  --stateless            no sessions and no GET stream: every POST stands alone
  --json                 answer with application/json when the response is all there is (else SSE)
  --allowed-host NAME    accept this Host (repeatable; default: loopback names when bound to loopback)
  --allowed-origin URL   accept this Origin (repeatable; default: origins on an allowed host)
  -h, --help             show this help
`,
  options: {
    stdio: { type: 'boolean' },
    host: { type: 'string' },
    port: { type: 'string' },
    stateless: { type: 'boolean' },
    json: { type: 'boolean' },
    'allowed-host': { type: 'string', multiple: true },
    'allowed-origin': { type: 'string', multiple: true },
  },
  async run(values) {
    const server = createDemoServer()
    server.onerror = (error) => process.stderr.write(`mcp-auth demo-server: ${error.message}\n`)
    if (values.stdio === true) return serveStdio(server)

    const host = (values.host as string | undefined) ?? defaults.cli.host
    const port = parsePort(values.port, defaults.cli.port)
    const allowedHosts = values['allowed-host'] as unknown as string[] | undefined
    const allowedOrigins = values['allowed-origin'] as unknown as string[] | undefined
    const http = createMcpHttpApp(server, {
      host,
      stateless: values.stateless === true,
      preferJsonResponse: values.json === true,
      ...(allowedHosts === undefined ? {} : { allowedHosts }),
      ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
    })
    const { server: listener } = await listen(http.handler, host, port)
    await untilSignal()
    await http.close()
    listener.closeAllConnections()
    await new Promise((resolve) => listener.close(resolve))
    return 0
  },
}

async function serveStdio(server: ReturnType<typeof createDemoServer>): Promise<number> {
  const session = await server.connect(new StdioServerTransport())
  await new Promise<void>((resolve) => {
    const previous = session.onclose
    session.onclose = () => {
      previous?.()
      resolve()
    }
  })
  return 0
}
