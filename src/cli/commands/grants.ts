import { ADMIN_OPTIONS, adminUsage, withAdminServer } from '../admin-server.js'
import { UsageError, type Command } from '../command.js'

export const grantsCommand: Command = {
  name: 'grants',
  summary: 'list what users granted to clients, and end grants',
  usage: `
Usage: mcp-auth grants list [--user NAME] [--client ID] [--data-dir DIR] [--config FILE] [--redis URL]
       mcp-auth grants revoke <grant-id> | --user NAME | --client ID [--data-dir DIR] [--config FILE] [--redis URL]

A grant is what a user consented to for one client. 'revoke' ends it: every access token,
refresh token and code issued from it, the grant and the remembered consent; JWT access tokens of
the grant are then refused by resource servers that check revocation (as 'mcp-auth start' does),
and for a delegated login the upstream provider's tokens are revoked too (give --config so the
upstream is known). A single server's data directory admits one process: stop it first. With
Redis (--redis, several nodes) it acts while the nodes run, and every node refuses the grant's
tokens at once.

Options:
  --user NAME      the grants of one account
  --client ID      the grants of one client
${adminUsage(19)}  -h, --help       show this help
`,
  options: { ...ADMIN_OPTIONS, user: { type: 'string' }, client: { type: 'string' } },
  allowPositionals: true,
  async run(values, positionals) {
    const [action, grantId, ...extra] = positionals
    if (action !== 'list' && action !== 'revoke') throw new UsageError("expected 'list' or 'revoke'")
    const filter = {
      ...(typeof values.user === 'string' ? { username: values.user } : {}),
      ...(typeof values.client === 'string' ? { clientId: values.client } : {}),
    }
    if (extra.length > 0 || (action === 'list' && grantId !== undefined)) throw new UsageError('too many arguments')
    if (action === 'revoke' && (grantId === undefined) === (Object.keys(filter).length === 0)) {
      throw new UsageError("'revoke' takes a grant id, or --user and/or --client")
    }
    return withAdminServer(values, async (as) => {
      if (action === 'list') {
        for (const grant of await as.grants.list(filter)) {
          const scopes = Object.entries(grant.resources)
            .map(([resource, scope]) => `${resource}: ${scope}`)
            .join('; ')
          const created = grant.createdAt === undefined ? '-' : new Date(grant.createdAt * 1000).toISOString()
          process.stdout.write(
            `${grant.grantId}\t${grant.username ?? `(deleted ${grant.accountId})`}\t${grant.clientId}${grant.clientName ? ` (${grant.clientName})` : ''}\t${scopes || '-'}\t${created}\n`,
          )
        }
        return 0
      }
      if (grantId !== undefined) {
        if (!(await as.grants.revoke(grantId))) {
          process.stderr.write(`mcp-auth grants: no grant ${grantId}\n`)
          return 1
        }
        process.stdout.write(`grant ${grantId} ended\n`)
        return 0
      }
      const ended = await as.grants.revokeAll(filter)
      process.stdout.write(`${ended} grant${ended === 1 ? '' : 's'} ended\n`)
      return 0
    })
  },
}
