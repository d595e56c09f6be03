import { CLIENT_OPTIONS, cliAuth, serverUrl } from '../client-auth.js'
import type { Command } from '../command.js'

export const logoutCommand: Command = {
  name: 'logout',
  summary: 'forget the tokens for a protected MCP server',
  usage: `
Usage: mcp-auth logout <url> [--store FILE]

Deletes the stored tokens for this server (the client registration at its authorization server is
kept for the next login).

Options:
  --store FILE   token store (default ~/.config/mcp-auth/tokens.json)
  -h, --help     show this help
`,
  options: { store: CLIENT_OPTIONS.store },
  allowPositionals: true,
  async run(values, positionals) {
    const url = serverUrl(positionals[0])
    await cliAuth(url, values).logout()
    process.stdout.write(`logged out of ${url}\n`)
  },
}
