import { CLIENT_OPTIONS, CLIENT_USAGE, cliAuth, serverUrl } from '../client-auth.js'
import type { Command } from '../command.js'

export const logoutCommand: Command = {
  name: 'logout',
  summary: 'forget the tokens for a protected MCP server',
  usage: `
Usage: mcp-auth logout <url> [login options]

Deletes the stored tokens for this server (the client registration at its authorization server is
kept for the next login).

The login options are those of every client command (only --store matters here).
${CLIENT_USAGE}  -h, --help   show this help
`,
  options: { ...CLIENT_OPTIONS },
  allowPositionals: true,
  async run(values, positionals) {
    const url = serverUrl(positionals[0])
    await cliAuth(url, values).logout()
    process.stdout.write(`logged out of ${url}\n`)
  },
}
