import type { McpOAuth } from '../auth/client/mcp-oauth.js'
import { CLIENT_OPTIONS, CLIENT_USAGE, cliAuth, serverUrl } from './client-auth.js'
import type { Command } from './command.js'

/** A verb that acts on the login stored for one server: its name, summary and what it does. */
export interface StoredLoginCommandSpec {
  name: string
  summary: string
  /** The usage paragraphs between the `Usage:` line and the login options. */
  description: string
  // biome-ignore lint/suspicious/noConfusingVoidType: as Command.run, nothing returned is exit code 0
  run(auth: McpOAuth, url: string): Promise<number | void>
}

/**
 * `mcp-auth <verb> <url> [login options]` for a verb that reads or changes the stored login of one
 * server (logout, whoami): it takes the client options (only --store matters) and hands `run` the
 * server's URL and the client auth built for it.
 */
export function storedLoginCommand(spec: StoredLoginCommandSpec): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    usage: `
Usage: mcp-auth ${spec.name} <url> [login options]

${spec.description}

The login options are those of every client command (only --store matters here).
${CLIENT_USAGE}  -h, --help   show this help
`,
    options: { ...CLIENT_OPTIONS },
    allowPositionals: true,
    async run(values, positionals) {
      const url = serverUrl(positionals[0])
      return spec.run(cliAuth(url, values), url)
    },
  }
}
