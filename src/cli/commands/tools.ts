import { CLIENT_OPTIONS, CLIENT_USAGE, cliClientAuth, connectClient, serverUrl } from '../client-auth.js'
import { withLogin } from '../with-login.js'
import type { Command } from '../command.js'

export const toolsCommand: Command = {
  name: 'tools',
  summary: 'list the tools of a protected MCP server (logging in if needed)',
  usage: `
Usage: mcp-auth tools <url> [--json] [login options]

Options:
  --json   print the tool list as JSON
${CLIENT_USAGE}  -h, --help   show this help
`,
  options: { ...CLIENT_OPTIONS, json: { type: 'boolean' } },
  allowPositionals: true,
  interruptible: true,
  async run(values, positionals, { signal }) {
    const url = serverUrl(positionals[0])
    const auth = cliClientAuth(url, values, { signal, loginOutsideFetch: true })
    const client = await connectClient(url, auth, { signal })
    try {
      const tools = await withLogin(auth, () => client.listAllTools({ signal }))
      if (values.json === true) process.stdout.write(`${JSON.stringify(tools, null, 2)}\n`)
      else for (const tool of tools) process.stdout.write(`${tool.name}${tool.description ? `  ${tool.description}` : ''}\n`)
    } finally {
      await client.close()
    }
  },
}
