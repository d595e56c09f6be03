import { CLIENT_OPTIONS, CLIENT_USAGE, cliAuth, cliClientAuth, serverUrl } from '../client-auth.js'
import type { Command } from '../command.js'

export const tokenCommand: Command = {
  name: 'token',
  summary: 'print an access token for a protected MCP server (logging in if needed), for scripts',
  usage: `
Usage: mcp-auth token <url> [login options]

Prints the access token for the server on stdout, and nothing else: the stored one while it is
valid, a refreshed one when it is due, or one from a browser login when there is none (a
machine's token by client credentials or JWT bearer, never a browser, with those options). For tools
that take a bearer token (MCP Inspector's "Authentication" field, curl):

  curl -H "Authorization: Bearer $(mcp-auth token http://localhost:4000/mcp)" ...

The token is a secret: do not paste it where others can read it. A DPoP-bound token (the
authorization server offered DPoP, RFC 9449) works only with a proof of the key kept in the token
store: stderr says so, and such a token is for mcp-auth's own commands (call, tools, proxy), not
for curl. Exit code 1 when the server needs no token or none could be had.
${CLIENT_USAGE}  -h, --help   show this help
`,
  options: { ...CLIENT_OPTIONS },
  allowPositionals: true,
  interruptible: true,
  async run(values, positionals, { signal }) {
    const url = serverUrl(positionals[0])
    const machine = await cliClientAuth(url, values, { signal }).machineToken?.()
    if (machine !== undefined) {
      if (machine.dpop !== undefined) {
        process.stderr.write('mcp-auth token: this token is DPoP-bound: it works only with a proof of the key in the token store (mcp-auth call, tools, proxy)\n')
      }
      process.stdout.write(`${machine.token}\n`)
      return 0
    }
    const auth = cliAuth(url, values, { signal })
    const token = await auth.accessToken()
    if (token === undefined) {
      process.stderr.write(`mcp-auth token: ${url} asked for no token\n`)
      return 1
    }
    if ((await auth.storedTokens())?.token_type?.toLowerCase() === 'dpop') {
      process.stderr.write('mcp-auth token: this token is DPoP-bound: it works only with a proof of the key in the token store (mcp-auth call, tools, proxy)\n')
    }
    process.stdout.write(`${token}\n`)
    return 0
  },
}
