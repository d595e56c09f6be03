import { randomBytes } from 'node:crypto'
import { AccountStore } from '../../auth/server/stores/account-store.js'
import { UsageError, type Command } from '../command.js'
import { parseScopes } from '../scope-list.js'
import { ADMIN_OPTIONS, adminUsage, adminTarget, openAdminRecords, withAdminServer } from '../admin-server.js'

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? ''
}

export const usersCommand: Command = {
  name: 'users',
  summary: 'add, list, disable or delete local accounts of the authorization server, and the scopes each may be granted',
  usage: `
Usage: mcp-auth users add <username> [--scopes "SCOPE ..."] [--password-stdin] [--name NAME] [--email EMAIL] [STORE]
       mcp-auth users set-scopes <username> "SCOPE ..." | --default [STORE]
       mcp-auth users list [STORE]
       mcp-auth users delete|disable|enable <username> [STORE]
STORE: [--data-dir DIR] [--config FILE] [--redis URL] [--redis-prefix P]

'add' creates the account, or sets a new password for an existing one. The password comes from
the first line of stdin with --password-stdin, else from MCP_AUTH_PASSWORD, else a random one is
generated and printed once. Passwords are stored as scrypt hashes. A single server's data
directory admits one process: stop it first (the store refuses a second writer). With Redis
(--redis, several nodes) the command acts on the deployment's store while the nodes run, and
the change reaches every node at once.

'delete' removes the account and ends its grants (every token issued from them); 'disable' keeps
the account but refuses its logins and ends its grants, 'enable' lets it log in again.

Scopes: an account is granted at most the scopes it may have, whatever a client asks for. Without
--scopes it may have each resource's default scopes (e.g. "mcp"); 'set-scopes' changes the list
('--default' goes back to the resources' defaults). A narrower list applies from the account's
next authorization on.

Options:
  --scopes "S ..."   scopes the account may be granted (space-separated)
  --default          with set-scopes: the resources' default scopes
  --password-stdin   read the password from stdin
  --name NAME        display name (OIDC 'name' claim)
  --email EMAIL      email (OIDC 'email' claim)
${adminUsage(21)}  -h, --help         show this help
`,
  options: {
    scopes: { type: 'string' },
    default: { type: 'boolean' },
    'password-stdin': { type: 'boolean' },
    name: { type: 'string' },
    email: { type: 'string' },
    ...ADMIN_OPTIONS,
  },
  allowPositionals: true,
  async run(values, positionals) {
    const [action, username, ...extra] = positionals
    if (action === 'delete' || action === 'disable' || action === 'enable') {
      if (username === undefined || extra.length > 0) throw new UsageError(`'${action}' takes exactly one username`)
      return withAdminServer(values, async (as) => {
        const { grantsEnded } = action === 'delete' ? await as.deleteUser(username) : await as.disableUser(username, action === 'disable')
        process.stdout.write(`account ${username} ${action}d${action === 'enable' ? '' : `; ${grantsEnded} grant${grantsEnded === 1 ? '' : 's'} ended`}\n`)
        return 0
      })
    }
    if (action !== 'add' && action !== 'list' && action !== 'set-scopes')
      throw new UsageError("expected 'add <username>', 'set-scopes <username> \"SCOPE ...\"', 'list', 'delete', 'disable' or 'enable'")
    if (action === 'set-scopes') {
      if (username === undefined || extra.length > 1 || (extra.length === 1) === (values.default === true)) {
        throw new UsageError("'set-scopes' takes a username and either a scope list or --default")
      }
    } else if (extra.length > 0 || (action === 'add' && username === undefined) || (action === 'list' && username !== undefined)) {
      throw new UsageError(action === 'add' ? 'expected exactly one username' : "'list' takes no arguments")
    }
    const scopes =
      action === 'set-scopes' ? (extra[0] === undefined ? undefined : parseScopes(extra[0])) : typeof values.scopes === 'string' ? parseScopes(values.scopes) : undefined
    const store = await openAdminRecords(await adminTarget(values))
    try {
      const accounts = new AccountStore(store.records)
      if (action === 'list') {
        for (const account of await accounts.list()) {
          const may = account.scopes === undefined ? '(default scopes)' : account.scopes.join(' ') || '(no scope)'
          process.stdout.write(
            `${account.username}\t${account.id}\t${may}${account.upstream ? `\t(${account.upstream.issuer})` : ''}${account.disabled === true ? '\tdisabled' : ''}\n`,
          )
        }
        return 0
      }
      if (action === 'set-scopes') {
        const account = await accounts.setScopes(username!, scopes)
        process.stdout.write(`account ${account.username} may be granted: ${account.scopes === undefined ? '(default scopes)' : account.scopes.join(' ')}\n`)
        return 0
      }
      let password = values['password-stdin'] === true ? await readStdin() : process.env['MCP_AUTH_PASSWORD']
      const generated = password === undefined || password === ''
      if (generated) password = randomBytes(12).toString('base64url')
      const claims = {
        ...(typeof values.name === 'string' ? { name: values.name } : {}),
        ...(typeof values.email === 'string' ? { email: values.email, email_verified: false } : {}),
      }
      const account = await accounts.setUser(username!, password!, claims, scopes)
      process.stdout.write(`account ${account.username} (${account.id}) saved\n`)
      if (generated) process.stdout.write(`password: ${password}\n(shown once; it is stored only as a hash)\n`)
      return 0
    } finally {
      await store.close()
    }
  },
}
