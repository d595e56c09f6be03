import type { LoginOutcome } from '../../auth/client/mcp-oauth.js'
import { CLIENT_OPTIONS, CLIENT_USAGE, cliAuth, cliClientAuth, loginLine, serverUrl } from '../client-auth.js'
import type { Command } from '../command.js'

export const loginCommand: Command = {
  name: 'login',
  summary: 'log in to a protected MCP server and keep the tokens',
  usage: `
Usage: mcp-auth login <url> [--scope "a b"] [login options]

Finds the server's authorization server (protected resource metadata, then its metadata),
registers this client if needed, opens the login page in a browser, waits on a loopback port for
the way back, and stores the tokens (0600) for later commands. Says the scope granted, and the
scopes asked for that the account did not get ("not granted: files:read").

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
    // the scopes asked for and not granted are said (issue 28): the account may not have them
    let outcome: LoginOutcome | undefined
    const auth = cliAuth(url, values, {
      signal,
      onLogin: (login) => {
        outcome = login
      },
    })
    const tokens = await auth.login(typeof values.scope === 'string' ? { scope: values.scope } : {})
    process.stdout.write(`${loginLine(url, outcome ?? { ...(tokens.scope !== undefined ? { scope: tokens.scope } : {}), notGranted: [] })}\n`)
  },
}
