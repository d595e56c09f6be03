import type { Command } from '../command.js'
import { storedLoginCommand } from '../stored-login-command.js'

export const logoutCommand: Command = storedLoginCommand({
  name: 'logout',
  summary: 'forget the tokens for a protected MCP server',
  description: `Deletes the stored tokens for this server (the client registration at its authorization server is
kept for the next login).`,
  async run(auth, url) {
    await auth.logout()
    process.stdout.write(`logged out of ${url}\n`)
  },
})
