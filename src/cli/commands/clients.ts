import { adminApiClient, SERVER_OPTIONS, segment, serverUsage, type AdminApiClient } from '../admin-api-client.js'
import { AdminApiError } from '../admin-api-error.js'
import { ADMIN_OPTIONS, adminUsage, withAdminServer } from '../admin-server.js'
import { CLIENT_USAGE } from '../client-auth.js'
import { UsageError, type Command } from '../command.js'
import { terminalSafe } from '../terminal-safe.js'

const METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt']

/** A client as both modes print it (the admin API's view; the local summary made into it). */
interface ClientLine {
  client_id: string
  client_name?: string
  grant_types?: string[]
  redirect_uris?: string[]
  origin?: string
  blocked?: boolean
}

/** `<client id>  name  grant types  redirect URIs  [configured]  [blocked]`, tab-separated. */
function clientLine(client: ClientLine): string {
  // a dynamic client names itself: its name is printed inert
  return `${client.client_id}\t${client.client_name === undefined ? '-' : terminalSafe(client.client_name)}\t${(client.grant_types ?? []).join(' ')}\t${(client.redirect_uris ?? []).join(' ') || '-'}${client.origin === 'configured' ? '\tconfigured' : ''}${client.blocked === true ? '\tblocked' : ''}\n`
}

const removedLine = (clientId: string, grantsEnded: number): string => `client ${clientId} removed; ${grantsEnded} grant${grantsEnded === 1 ? '' : 's'} ended\n`

function noClient(clientId: string): number {
  process.stderr.write(`mcp-auth clients: no client ${clientId}\n`)
  return 1
}

function addedLines(added: { client_id: string; client_secret?: string }): void {
  process.stdout.write(`client_id: ${added.client_id}\n`)
  if (added.client_secret !== undefined) process.stdout.write(`client_secret: ${added.client_secret}\n(shown once; stored encrypted)\n`)
}

export const clientsCommand: Command = {
  name: 'clients',
  summary: 'pre-register, list or remove OAuth clients of the authorization server',
  usage: `
Usage: mcp-auth clients add --name NAME [--redirect-uri URI]... [--grant-type TYPE]...
                            [--auth-method METHOD] [--jwks-uri URL] [--scope "a b"] [STORE]
       mcp-auth clients list [--origin ORIGIN] [--blocked] [STORE]
       mcp-auth clients remove <client-id> [STORE]
       mcp-auth clients block|unblock <client-id> --server URL
STORE: --server URL [login options]   a running server, through its admin API
       [--data-dir DIR] [--config FILE] [--redis URL] [--redis-prefix P]

Registers a client the way dynamic registration would (same redirect URI policy: https, or http
on a loopback host, where any port matches), without expiry. Prints its client_id, and for
client_secret_basic / client_secret_post a client_secret — shown once, stored encrypted.
'list' shows every registered client (dynamic, added, configured; never secrets); 'remove'
deletes one and ends its grants (a configured one is removed from the configuration instead).
A generated client id may begin with '-': put '--' before it (mcp-auth clients remove -- -Xy3…).
'block' refuses a client's tokens and requests until 'unblock' (its grants stay).
With --server URL the running server acts (you log in as an administrator): a client removed or
blocked is refused by every node at once. Without it, a single server's data directory admits one
process: a running server refuses it (add --server URL, or stop it). With Redis (--redis, several
nodes) it acts while the nodes run: for recovery when no node answers.

Options:
  --name NAME            client_name shown on the consent page
  --redirect-uri URI     redirect URI (repeatable; needed for authorization_code)
  --grant-type TYPE      authorization_code, refresh_token, client_credentials (repeatable;
                         default: authorization_code + refresh_token, or client_credentials
                         when no redirect URI is given)
  --auth-method METHOD   ${METHODS.join(' | ')} (default client_secret_basic)
  --jwks-uri URL         where the client publishes its keys (private_key_jwt)
  --scope "a b"          client_credentials: the scopes its tokens may carry (default: the resources' default scopes)
  --origin ORIGIN        with list and --server: configured, administrator, dynamic or metadata-document
  --blocked              with list and --server: the blocked clients only
${serverUsage(25)}${adminUsage(25)}  -h, --help             show this help
${CLIENT_USAGE}`,
  options: {
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    'grant-type': { type: 'string', multiple: true },
    'auth-method': { type: 'string' },
    'jwks-uri': { type: 'string' },
    scope: { type: 'string' },
    origin: { type: 'string' },
    blocked: { type: 'boolean' },
    ...ADMIN_OPTIONS,
    ...SERVER_OPTIONS,
  },
  allowPositionals: true,
  interruptible: true,
  async run(values, positionals, { signal }) {
    const [action, clientId, ...extra] = positionals
    const api = adminApiClient(values, { signal })
    if ((values.origin !== undefined || values.blocked !== undefined) && (action !== 'list' || api === undefined)) {
      throw new UsageError('--origin and --blocked filter the list of a running server: clients list --server URL')
    }
    if (action === 'list' || action === 'remove' || action === 'block' || action === 'unblock') {
      if (extra.length > 0 || (action === 'list') !== (clientId === undefined))
        throw new UsageError(action === 'list' ? "'list' takes no arguments" : `'${action}' takes one client id`)
      if (api !== undefined) return throughApi(api, action, clientId, values)
      if (action === 'block' || action === 'unblock') throw new UsageError(`'${action}' acts on a running server: add --server URL`)
      return withAdminServer(values, async (as) => {
        if (action === 'list') {
          for (const client of await as.listClients()) process.stdout.write(clientLine({ ...client, ...(client.configured ? { origin: 'configured' } : {}) }))
          return 0
        }
        const { removed, grantsEnded } = await as.removeClient(clientId!)
        if (!removed) return noClient(clientId!)
        process.stdout.write(removedLine(clientId!, grantsEnded))
        return 0
      })
    }
    if (positionals.length !== 1 || action !== 'add') throw new UsageError("expected 'add', 'list', 'remove <client-id>', 'block <client-id>' or 'unblock <client-id>'")
    if (typeof values.name !== 'string') throw new UsageError('--name is required')
    const method = (values['auth-method'] as string | undefined) ?? 'client_secret_basic'
    if (!METHODS.includes(method)) throw new UsageError(`--auth-method must be one of ${METHODS.join(', ')}`)
    const redirectUris = (values['redirect-uri'] as unknown as string[] | undefined) ?? []
    const grantTypes = (values['grant-type'] as unknown as string[] | undefined) ?? (redirectUris.length > 0 ? ['authorization_code', 'refresh_token'] : ['client_credentials'])
    const metadata = {
      client_name: values.name,
      redirect_uris: redirectUris,
      grant_types: grantTypes,
      response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
      token_endpoint_auth_method: method,
      ...(typeof values['jwks-uri'] === 'string' ? { jwks_uri: values['jwks-uri'] } : {}),
      ...(typeof values.scope === 'string' ? { scope: values.scope } : {}),
    }
    if (api !== undefined) {
      const { body } = await api.call<{ client: { client_id: string }; client_secret?: string }>('POST', '/clients', { body: metadata, what: `adding the client ${values.name}` })
      addedLines({ client_id: body.client.client_id, ...(body.client_secret !== undefined ? { client_secret: body.client_secret } : {}) })
      return 0
    }
    return withAdminServer(values, async (as) => {
      addedLines(await as.addClient(metadata))
      return 0
    })
  },
}

/** list, remove, block and unblock through the running server's admin API; the same lines out. */
async function throughApi(
  api: AdminApiClient,
  action: 'list' | 'remove' | 'block' | 'unblock',
  clientId: string | undefined,
  values: Record<string, string | boolean | undefined>,
): Promise<number> {
  if (action === 'list') {
    const query = {
      origin: typeof values['origin'] === 'string' ? values['origin'] : undefined,
      blocked: values['blocked'] === true ? 'true' : undefined,
    }
    for await (const client of api.list<ClientLine>('/clients', query, 'listing the clients')) process.stdout.write(clientLine(client))
    return 0
  }
  const path = `/clients/${segment(clientId!)}`
  try {
    if (action === 'remove') {
      const { body } = await api.call<{ grants_ended?: number } | undefined>('DELETE', path, { what: `removing the client ${clientId}` })
      process.stdout.write(removedLine(clientId!, body?.grants_ended ?? 0))
    } else {
      await api.call(action === 'block' ? 'POST' : 'DELETE', `${path}/block`, { what: `${action === 'block' ? 'blocking' : 'unblocking'} the client ${clientId}` })
      process.stdout.write(`client ${clientId} ${action}ed\n`)
    }
    return 0
  } catch (error) {
    if (error instanceof AdminApiError && error.status === 404 && error.kind === 'not-found' && error.code !== undefined) return noClient(clientId!)
    throw error
  }
}
