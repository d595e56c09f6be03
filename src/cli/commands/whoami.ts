import { decodeJwt } from 'jose'
import type { Command } from '../command.js'
import { storedLoginCommand } from '../stored-login-command.js'

export const whoamiCommand: Command = storedLoginCommand({
  name: 'whoami',
  summary: 'show the stored login for a protected MCP server',
  description: `Prints what the stored access token says (account, subject, client, scope, whether it is
DPoP-bound, when it expires or whether it has; decoded, not verified: only the server can verify
it). Exit code 1 when not logged in.`,
  async run(auth, url) {
    const tokens = await auth.storedTokens()
    if (tokens === undefined) {
      process.stderr.write(`not logged in to ${url} (run: mcp-auth login ${url})\n`)
      return 1
    }
    let claims: Record<string, unknown> = {}
    try {
      claims = decodeJwt(tokens.access_token)
    } catch {
      // an opaque token: nothing to show but what the token response said
    }
    const lines = [
      `server   ${url}`,
      ...(claims['preferred_username'] !== undefined ? [`account  ${String(claims['preferred_username'])}`] : []),
      ...(claims['sub'] !== undefined ? [`subject  ${String(claims['sub'])}`] : []),
      ...(claims['client_id'] !== undefined ? [`client   ${String(claims['client_id'])}`] : []),
      ...(claims['iss'] !== undefined ? [`issuer   ${String(claims['iss'])}`] : []),
      `scope    ${tokens.scope ?? String(claims['scope'] ?? '')}`,
      // DPoP-bound tokens need the key kept in the token store; `mcp-auth token` prints a Bearer one (issue 28)
      `type     ${tokens.token_type?.toLowerCase() === 'dpop' ? 'DPoP-bound (RFC 9449)' : 'Bearer'}`,
      ...(tokens.expires_at !== undefined ? [`expires  ${new Date(tokens.expires_at * 1000).toISOString()} (${expiry(tokens.expires_at)})`] : []),
      `refresh  ${tokens.refresh_token !== undefined ? 'yes' : 'no'}`,
    ]
    process.stdout.write(`${lines.join('\n')}\n`)
    return 0
  },
})

/** `in 42 min`, `expired 3 min ago`: the expiry against now. */
function expiry(expiresAt: number): string {
  const seconds = Math.round(expiresAt - Date.now() / 1000)
  const span = (s: number) => (s >= 5400 ? `${Math.round(s / 3600)} h` : s >= 90 ? `${Math.round(s / 60)} min` : `${s} s`)
  return seconds > 0 ? `in ${span(seconds)}` : `expired ${span(-seconds)} ago`
}
