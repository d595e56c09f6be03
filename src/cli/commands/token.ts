import { McpOAuthError } from '../../auth/client/mcp-oauth-error.js'
import { CLIENT_OPTIONS, CLIENT_USAGE, cliAuth, cliClientAuth, serverUrl } from '../client-auth.js'
import { UsageError, type Command } from '../command.js'

export const tokenCommand: Command = {
  name: 'token',
  summary: 'print a Bearer access token for a protected MCP server (logging in if needed), for scripts',
  usage: `
Usage: mcp-auth token <url> [login options]

Prints a Bearer access token for the server on stdout, and nothing else: the stored one while it
is valid, a refreshed one when it is due, or one from a browser login when there is none (a
machine's token by client credentials or JWT bearer, never a browser, with those options). For
tools that take a bearer token (MCP Inspector's "Authentication" field, curl):

  curl -H "Authorization: Bearer $(mcp-auth token http://localhost:4000/mcp)" ...

The token is always a Bearer token: a DPoP-bound one (RFC 9449) works only with a proof of a key
kept in the token store, which a script cannot send. Where mcp-auth's own commands (call, tools,
proxy) hold DPoP-bound tokens for the server, this command gets a Bearer token of its own, kept
beside them. A server that accepts DPoP-bound tokens only gets none: exit code 1, use call, tools
or proxy. Exit code 1 too when the server needs no token or none could be had.

The token is a secret: do not paste it where others can read it.
${CLIENT_USAGE}  (--dpop does not apply here; --no-dpop is what this command always does.)
  -h, --help   show this help
`,
  options: { ...CLIENT_OPTIONS },
  allowPositionals: true,
  interruptible: true,
  async run(values, positionals, { signal }) {
    const url = serverUrl(positionals[0])
    if (values['dpop'] === true) throw new UsageError('mcp-auth token prints Bearer tokens for scripts, which cannot send DPoP proofs; --dpop is for call, tools and proxy')
    try {
      const machine = await cliClientAuth(url, values, { signal, dpop: 'never' }).machineToken?.()
      if (machine !== undefined) {
        process.stdout.write(`${machine.token}\n`)
        return 0
      }
      const token = await cliAuth(url, values, { signal, dpop: 'never' }).accessToken()
      if (token === undefined) {
        process.stderr.write(`mcp-auth token: ${url} asked for no token\n`)
        return 1
      }
      process.stdout.write(`${token}\n`)
      return 0
    } catch (error) {
      if (!(error instanceof McpOAuthError) || error.code !== 'dpop') throw error
      process.stderr.write(
        `mcp-auth token: ${url} accepts only DPoP-bound tokens, which need a proof of a key kept in the token store with every request; a script cannot send one. Use mcp-auth call, tools or proxy: they carry the proof.\n`,
      )
      return 1
    }
  },
}
