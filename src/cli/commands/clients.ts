import { UsageError, type Command } from '../command.js'
import { ADMIN_OPTIONS, adminUsage, withAdminServer } from '../admin-server.js'

const METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt']

export const clientsCommand: Command = {
  name: 'clients',
  summary: 'pre-register, list or remove OAuth clients of the authorization server',
  usage: `
Usage: mcp-auth clients add --name NAME [--redirect-uri URI]... [--grant-type TYPE]...
                            [--auth-method METHOD] [--jwks-uri URL] [--scope "a b"] [STORE]
       mcp-auth clients list [STORE]
       mcp-auth clients remove <client-id> [STORE]
STORE: [--data-dir DIR] [--config FILE] [--redis URL] [--redis-prefix P]

Registers a client the way dynamic registration would (same redirect URI policy: https, or http
on a loopback host, where any port matches), without expiry. Prints its client_id, and for
client_secret_basic / client_secret_post a client_secret — shown once, stored encrypted.
'list' shows every registered client (dynamic, added, configured; never secrets); 'remove'
deletes one and ends its grants (a configured one is removed from the configuration instead).
A generated client id may begin with '-': put '--' before it (mcp-auth clients remove -- -Xy3…).
A single server's data directory admits one process: stop it first. With Redis (--redis,
several nodes) it acts while the nodes run: a client removed is refused by every node at once.

Options:
  --name NAME            client_name shown on the consent page
  --redirect-uri URI     redirect URI (repeatable; needed for authorization_code)
  --grant-type TYPE      authorization_code, refresh_token, client_credentials (repeatable;
                         default: authorization_code + refresh_token, or client_credentials
                         when no redirect URI is given)
  --auth-method METHOD   ${METHODS.join(' | ')} (default client_secret_basic)
  --jwks-uri URL         where the client publishes its keys (private_key_jwt)
  --scope "a b"          client_credentials: the scopes its tokens may carry (default: the resources' default scopes)
${adminUsage(25)}  -h, --help             show this help
`,
  options: {
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    'grant-type': { type: 'string', multiple: true },
    'auth-method': { type: 'string' },
    'jwks-uri': { type: 'string' },
    scope: { type: 'string' },
    ...ADMIN_OPTIONS,
  },
  allowPositionals: true,
  async run(values, positionals) {
    const [action, clientId, ...extra] = positionals
    if (action === 'list' || action === 'remove') {
      if (extra.length > 0 || (action === 'list') !== (clientId === undefined))
        throw new UsageError(action === 'list' ? "'list' takes no arguments" : "'remove' takes one client id")
      return withAdminServer(values, async (as) => {
        if (action === 'list') {
          for (const client of await as.listClients()) {
            process.stdout.write(
              `${client.client_id}\t${client.client_name ?? '-'}\t${(client.grant_types ?? []).join(' ')}\t${(client.redirect_uris ?? []).join(' ') || '-'}${client.configured ? '\tconfigured' : ''}\n`,
            )
          }
          return 0
        }
        const { removed, grantsEnded } = await as.removeClient(clientId!)
        if (!removed) {
          process.stderr.write(`mcp-auth clients: no client ${clientId}\n`)
          return 1
        }
        process.stdout.write(`client ${clientId} removed; ${grantsEnded} grant${grantsEnded === 1 ? '' : 's'} ended\n`)
        return 0
      })
    }
    if (positionals.length !== 1 || action !== 'add') throw new UsageError("expected 'add', 'list' or 'remove <client-id>'")
    if (typeof values.name !== 'string') throw new UsageError('--name is required')
    const method = (values['auth-method'] as string | undefined) ?? 'client_secret_basic'
    if (!METHODS.includes(method)) throw new UsageError(`--auth-method must be one of ${METHODS.join(', ')}`)
    const redirectUris = (values['redirect-uri'] as unknown as string[] | undefined) ?? []
    const grantTypes = (values['grant-type'] as unknown as string[] | undefined) ?? (redirectUris.length > 0 ? ['authorization_code', 'refresh_token'] : ['client_credentials'])
    return withAdminServer(values, async (as) => {
      const added = await as.addClient({
        client_name: values.name,
        redirect_uris: redirectUris,
        grant_types: grantTypes,
        response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
        token_endpoint_auth_method: method,
        ...(typeof values['jwks-uri'] === 'string' ? { jwks_uri: values['jwks-uri'] } : {}),
        ...(typeof values.scope === 'string' ? { scope: values.scope } : {}),
      })
      process.stdout.write(`client_id: ${added.client_id}\n`)
      if (added.client_secret !== undefined) process.stdout.write(`client_secret: ${added.client_secret}\n(shown once; stored encrypted)\n`)
      return 0
    })
  },
}
