import { adminApiClient, SERVER_OPTIONS, segment, serverUsage, type AdminApiClient } from '../admin-api-client.js'
import { AdminApiError } from '../admin-api-error.js'
import { ADMIN_OPTIONS, adminUsage, withAdminServer } from '../admin-server.js'
import { CLIENT_USAGE } from '../client-auth.js'
import { UsageError, type Command } from '../command.js'
import { terminalSafe } from '../terminal-safe.js'
import { type GrantView, grantView } from '../../auth/server/admin-api/grant-view.js'

/** `<grant id>  alice  <client id> (name)  <resource>: <scope>; …  <created>`, tab-separated. */
function grantLine(grant: GrantView): string {
  const scopes = Object.entries(grant.resources)
    .map(([resource, scope]) => `${resource}: ${scope}`)
    .join('; ')
  return `${grant.grant_id}\t${grant.username ?? `(deleted ${grant.account_id})`}\t${grant.client_id}${grant.client_name ? ` (${terminalSafe(grant.client_name)})` : ''}\t${scopes || '-'}\t${grant.created_at ?? '-'}\n`
}

const endedCount = (ended: number): string => `${ended} grant${ended === 1 ? '' : 's'} ended\n`

export const grantsCommand: Command = {
  name: 'grants',
  summary: 'list what users granted to clients, and end grants',
  usage: `
Usage: mcp-auth grants list [--user NAME] [--client ID] [WHERE]
       mcp-auth grants revoke <grant-id> | --user NAME | --client ID [WHERE]
WHERE: --server URL [login options]   a running server, through its admin API
       [--data-dir DIR] [--config FILE] [--redis URL] [--redis-prefix P]

A grant is what a user consented to for one client. 'revoke' ends it: every access token,
refresh token and code issued from it, the grant and the remembered consent; JWT access tokens of
the grant are then refused by resource servers that check revocation (as 'mcp-auth start' does),
and for a delegated login the upstream provider's tokens are revoked too (give --config so the
upstream is known). With --server URL the running server acts (you log in as an
administrator), and on Redis every node refuses the grant's tokens at once. Without it, a single
server's data directory admits one process: a running server refuses it (add --server URL, or
stop it). With Redis (--redis, several nodes) it acts while the nodes run: for recovery when no
node answers.

Options:
  --user NAME      the grants of one account
  --client ID      the grants of one client
${serverUsage(19)}${adminUsage(19)}  -h, --help       show this help
${CLIENT_USAGE}`,
  options: { ...ADMIN_OPTIONS, ...SERVER_OPTIONS, user: { type: 'string' }, client: { type: 'string' } },
  allowPositionals: true,
  interruptible: true,
  async run(values, positionals, { signal }) {
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
    const api = adminApiClient(values, { signal })
    if (api !== undefined) return throughApi(api, action, grantId, filter)
    return withAdminServer(values, async (as) => {
      if (action === 'list') {
        for (const grant of await as.grants.list(filter)) {
          process.stdout.write(grantLine(grantView(grant)))
        }
        return 0
      }
      if (grantId !== undefined) {
        if (!(await as.grants.revoke(grantId))) return noGrant(grantId)
        process.stdout.write(`grant ${grantId} ended\n`)
        return 0
      }
      process.stdout.write(endedCount(await as.grants.revokeAll(filter)))
      return 0
    })
  },
}

function noGrant(grantId: string): number {
  process.stderr.write(`mcp-auth grants: no grant ${grantId}\n`)
  return 1
}

/** The same verbs through the running server's admin API (GET /grants, DELETE /grants/{id}); the same lines out. */
async function throughApi(api: AdminApiClient, action: 'list' | 'revoke', grantId: string | undefined, filter: { username?: string; clientId?: string }): Promise<number> {
  const grants = () => api.list<GrantView>('/grants', { username: filter.username, client_id: filter.clientId }, 'listing the grants')
  if (action === 'list') {
    for await (const grant of grants()) process.stdout.write(grantLine(grant))
    return 0
  }
  /** Whether it ended (false: there was no such grant, or it ended meanwhile). */
  const revoke = async (id: string): Promise<boolean> => {
    try {
      await api.call('DELETE', `/grants/${segment(id)}`, { what: `revoking the grant ${id}` })
      return true
    } catch (error) {
      if (error instanceof AdminApiError && error.status === 404) return false
      throw error
    }
  }
  if (grantId !== undefined) {
    if (!(await revoke(grantId))) return noGrant(grantId)
    process.stdout.write(`grant ${grantId} ended\n`)
    return 0
  }
  // the whole list first: revoking while paging would move the cursor under our feet
  const ids: string[] = []
  for await (const grant of grants()) ids.push(grant.grant_id)
  let ended = 0
  for (const id of ids) if (await revoke(id)) ended++
  process.stdout.write(endedCount(ended))
  return 0
}
