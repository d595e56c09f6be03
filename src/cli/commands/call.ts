import { CLIENT_OPTIONS, CLIENT_USAGE, cliClientAuth, connectClient, serverUrl } from '../client-auth.js'
import { withLogin } from '../with-login.js'
import { parseSeconds, UsageError, type Command } from '../command.js'
import { StatusLine } from '../status-line.js'
import { defaults } from '../../config/defaults.js'

export const callCommand: Command = {
  name: 'call',
  summary: 'call a tool of a protected MCP server (logging in if needed)',
  usage: `
Usage: mcp-auth call <url> <tool> ['{"json": "arguments"}'] [--timeout S] [login options]

Prints the tool result as JSON. The tool's progress and log messages go to stderr as they
arrive (one line updated in place on a terminal, a line each otherwise). Exit code 1 when the
tool reports an error.

Options:
  --timeout S   how long each MCP request may wait for its answer, in seconds (default ${defaults.protocol.requestTimeoutMs / 1000});
                a browser login the server asks for on the way is not counted
${CLIENT_USAGE}  -h, --help   show this help
`,
  options: { ...CLIENT_OPTIONS, timeout: { type: 'string' } },
  allowPositionals: true,
  interruptible: true,
  async run(values, positionals, { signal }) {
    const url = serverUrl(positionals[0])
    const requestTimeoutMs = parseSeconds('timeout', values.timeout)
    const tool = positionals[1]
    if (tool === undefined) throw new UsageError('expected a tool name')
    let args: Record<string, unknown> = {}
    if (positionals[2] !== undefined) {
      try {
        args = JSON.parse(positionals[2]) as Record<string, unknown>
      } catch {
        throw new UsageError('the arguments must be a JSON object')
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new UsageError('the arguments must be a JSON object')
    }
    const auth = cliClientAuth(url, values, { signal, loginOutsideFetch: true })
    const client = await connectClient(url, auth, { signal, requestTimeoutMs })
    const status = new StatusLine(process.stderr)
    client.on('logging', ({ level, logger, data }) =>
      status.line(`[${level}]${logger === undefined ? '' : ` ${logger}:`} ${typeof data === 'string' ? data : JSON.stringify(data)}`),
    )
    try {
      if (client.serverCapabilities?.logging !== undefined) await withLogin(auth, () => client.setLoggingLevel('info', { signal }))
      const result = await withLogin(auth, () => client.callTool(tool, args, { signal, onprogress: ({ progress, total, message }) => status.progress(progress, total, message) }))
      status.end()
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
      return result.isError === true ? 1 : 0
    } finally {
      status.end()
      await client.close()
    }
  },
}
