import { CLIENT_OPTIONS, CLIENT_USAGE, cliAuth, cliClientAuth, serverUrl } from '../client-auth.js'
import type { Command } from '../command.js'

export const loginCommand: Command = {
  name: 'login',
  summary: 'log in to a protected MCP server and keep the tokens',
  usage: `
Usage: mcp-auth login <url> [--scope "a b"] [login options]

Finds the server's authorization server (protected resource metadata, then its metadata),
registers this client if needed, opens the login page in a browser, waits on a loopback port for
the way back, and stores the tokens (0600) for later commands.

Options:
  --scope "a b"   scopes to ask for (default: what the server says it needs)
${CLIENT_USAGE}  -h, --help      show this help
`,
  options: { ...CLIENT_OPTIONS, scope: { type: 'string' } },
  allowPositionals: true,
  interruptible: true,
  async run(values, positionals, { signal }) {
    const url = serverUrl(positionals[0])
    // a machine (client credentials, JWT bearer) gets its token, kept in the store, without a browser
    const machine = await cliClientAuth(url, values, { signal }).machineToken?.()
    if (machine !== undefined) {
      process.stdout.write(`got a token for ${url} as client ${String(values['client-id'] ?? '')} (no browser; kept until it expires)\n`)
      return
    }
    const auth = cliAuth(url, values, { signal })
    const tokens = await auth.login(typeof values.scope === 'string' ? { scope: values.scope } : {})
    process.stdout.write(`logged in to ${url}${tokens.scope ? ` (scope: ${tokens.scope})` : ''}\n`)
  },
}
