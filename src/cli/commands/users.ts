import { randomBytes } from 'node:crypto'
import type { Account } from '../../auth/server/stores/account-store.js'
import { AccountStore } from '../../auth/server/stores/account-store.js'
import { defaults } from '../../config/defaults.js'
import { adminApiClient, SERVER_OPTIONS, segment, serverUsage, type AdminApiClient } from '../admin-api-client.js'
import { AdminApiError } from '../admin-api-error.js'
import { ADMIN_OPTIONS, adminUsage, adminTarget, openAdminRecords, withAdminServer } from '../admin-server.js'
import { CLIENT_USAGE } from '../client-auth.js'
import { UsageError, type Command } from '../command.js'
import { parseScopes } from '../scope-list.js'

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? ''
}

/** An account as both modes print it: the admin API's view, or the store's record made into it. */
interface AccountLine {
  username: string
  id: string
  scopes?: readonly string[]
  upstream?: { issuer: string }
  role: 'admin' | 'user'
  disabled: boolean
}

const fromRecord = (account: Account): AccountLine => ({
  username: account.username,
  id: account.id,
  ...(account.scopes !== undefined ? { scopes: account.scopes } : {}),
  ...(account.upstream !== undefined ? { upstream: account.upstream } : {}),
  role: account.role ?? 'user',
  disabled: account.disabled === true,
})

/** `alice  <id>  mcp  [(upstream issuer)]  [admin]  [disabled]`: one line per account, tab-separated. */
function listLine(account: AccountLine): string {
  const may = account.scopes === undefined ? '(default scopes)' : account.scopes.join(' ') || '(no scope)'
  return `${account.username}\t${account.id}\t${may}${account.upstream ? `\t(${account.upstream.issuer})` : ''}${account.role === 'admin' ? '\tadmin' : ''}${account.disabled ? '\tdisabled' : ''}\n`
}

const scopesLine = (account: { username: string; scopes?: readonly string[] }): string =>
  `account ${account.username} may be granted: ${account.scopes === undefined ? '(default scopes)' : account.scopes.join(' ')}\n`
const roleLine = (account: { username: string; role?: string }): string =>
  `account ${account.username} is ${account.role === 'admin' ? 'an administrator' : 'not an administrator (role user)'}\n`
const endedLine = (username: string, action: string, grantsEnded: number): string =>
  `account ${username} ${action}d${action === 'enable' ? '' : `; ${grantsEnded} grant${grantsEnded === 1 ? '' : 's'} ended`}\n`
const linkLine = (username: string, link: { url: string; expires_at: string }): string =>
  `set-password link for ${username} (one use, until ${link.expires_at}; earlier links of the account no longer work):\n${link.url}\n`

export const usersCommand: Command = {
  name: 'users',
  summary: 'add, list, disable or delete accounts of the authorization server, their roles and the scopes each may be granted',
  usage: `
Usage: mcp-auth users add <username> [--admin] [--scopes "SCOPE ..."] [--password-stdin] [--name NAME] [--email EMAIL] [WHERE]
       mcp-auth users set-scopes <username> "SCOPE ..." | --default [WHERE]
       mcp-auth users set-role <username> admin|user [WHERE]
       mcp-auth users list [WHERE]
       mcp-auth users delete|disable|enable <username> [WHERE]
       mcp-auth users password-link <username> --server URL [login options]
WHERE: --server URL [login options]              a running server, through its admin API
       [--data-dir DIR] [--config FILE]          a stopped server's data directory (the default)
       [--redis URL] [--redis-prefix P]          the deployment's Redis, directly (recovery)

'add' creates the account, or (not with --server) sets a new password for an existing one. The
password comes from the first line of stdin with --password-stdin, else from MCP_AUTH_PASSWORD,
else a random one is generated and printed once. Passwords are stored as scrypt hashes.
--admin makes the account an administrator (the first one is made this way, on the data
directory before the first start); the demo account never is one.

With --server URL (the issuer, e.g. http://localhost:4000) the command acts on the running
server: you log in as an administrator (as 'mcp-auth login' does; the tokens are kept, and
a sign-in too old for the action is asked again). Without it, a single server's data directory
admits one process: a running server refuses it (add --server URL, or stop it). With Redis
(--redis, several nodes) the command acts on the deployment's store while the nodes run, and the
change reaches every node at once: for recovery when no node answers.

'delete' removes the account and ends its grants (every token issued from them); 'disable' keeps
the account but refuses its logins and ends its grants, 'enable' lets it log in again.
'set-role' makes an account an administrator or an ordinary one again (the last active
administrator stays one). 'password-link' prints a one-time link where the person sets a new
password (hand it over yourself).

Scopes: an account is granted at most the scopes it may have, whatever a client asks for. Without
--scopes it may have each resource's default scopes (e.g. "mcp"); 'set-scopes' changes the list
('--default' goes back to the resources' defaults). A narrower list applies from the account's
next authorization on.

Options:
  --admin            with add: the account is an administrator
  --scopes "S ..."   scopes the account may be granted (space-separated)
  --default          with set-scopes: the resources' default scopes
  --password-stdin   read the password from stdin
  --name NAME        display name (OIDC 'name' claim)
  --email EMAIL      email (OIDC 'email' claim)
${serverUsage(21)}${adminUsage(21)}  -h, --help         show this help
${CLIENT_USAGE}`,
  options: {
    admin: { type: 'boolean' },
    scopes: { type: 'string' },
    default: { type: 'boolean' },
    'password-stdin': { type: 'boolean' },
    name: { type: 'string' },
    email: { type: 'string' },
    ...ADMIN_OPTIONS,
    ...SERVER_OPTIONS,
  },
  allowPositionals: true,
  interruptible: true,
  async run(values, positionals, { signal }) {
    const [action, username, ...extra] = positionals
    const single = action === 'delete' || action === 'disable' || action === 'enable' || action === 'password-link'
    if (single) {
      if (username === undefined || extra.length > 0) throw new UsageError(`'${action}' takes exactly one username`)
    } else if (action === 'set-role') {
      if (username === undefined || extra.length !== 1 || (extra[0] !== 'admin' && extra[0] !== 'user')) throw new UsageError("'set-role' takes a username and 'admin' or 'user'")
    } else if (action === 'set-scopes') {
      if (username === undefined || extra.length > 1 || (extra.length === 1) === (values.default === true)) {
        throw new UsageError("'set-scopes' takes a username and either a scope list or --default")
      }
    } else if (action === 'add' || action === 'list') {
      if (extra.length > 0 || (action === 'add' && username === undefined) || (action === 'list' && username !== undefined)) {
        throw new UsageError(action === 'add' ? 'expected exactly one username' : "'list' takes no arguments")
      }
    } else {
      throw new UsageError(
        "expected 'add <username>', 'set-scopes <username> \"SCOPE ...\"', 'set-role <username> admin|user', 'list', 'delete', 'disable', 'enable' or 'password-link'",
      )
    }
    if (values.admin === true && action !== 'add') throw new UsageError("--admin goes with 'add' (else: set-role)")
    const scopes =
      action === 'set-scopes' ? (extra[0] === undefined ? undefined : parseScopes(extra[0])) : typeof values.scopes === 'string' ? parseScopes(values.scopes) : undefined
    const api = adminApiClient(values, { signal })
    const name = username as string
    if (api !== undefined) return throughApi(api, action, name, { scopes, role: extra[0], values })

    // the link is a page of the running server, at the issuer it serves (which a stopped one's files may not say)
    if (action === 'password-link') throw new UsageError("'password-link' makes a link to the running server's page: add --server URL")
    if (single || action === 'set-role') {
      return withAdminServer(values, async (as) => {
        if (action === 'set-role') {
          process.stdout.write(roleLine(await as.administration.accounts.setRole(name, extra[0] === 'admin' ? 'admin' : undefined)))
          return 0
        }
        const { grantsEnded } = action === 'delete' ? await as.deleteUser(name) : await as.disableUser(name, action === 'disable')
        process.stdout.write(endedLine(name, action, grantsEnded))
        return 0
      })
    }
    if (values.admin === true && name.toLowerCase() === defaults.mainJob.demoUsername) {
      throw new Error(`the demo account (${name}) is never an administrator: its password is printed at start and set from MCP_AUTH_DEMO_PASSWORD`)
    }
    const store = await openAdminRecords(await adminTarget(values))
    try {
      const accounts = new AccountStore(store.records)
      if (action === 'list') {
        for (const account of await accounts.list()) process.stdout.write(listLine(fromRecord(account)))
        return 0
      }
      if (action === 'set-scopes') {
        const changed = await accounts.setScopes(name, scopes)
        store.audit.record({ type: 'account.changed', result: 'success', subject: changed.id, username: changed.username, details: { fields: ['scopes'] } })
        process.stdout.write(scopesLine(changed))
        return 0
      }
      const { password, generated } = await passwordToSet(values)
      const existed = (await accounts.findByUsername(name)) !== undefined
      const account = await accounts.setUser(name, password, claimsOf(values), scopes, values.admin === true ? 'admin' : undefined)
      store.audit.record({
        type: existed ? 'account.changed' : 'account.created',
        result: 'success',
        subject: account.id,
        username: account.username,
        ...(existed ? { details: { fields: ['claims', 'password', 'role', 'scopes'] } } : { details: { role: account.role ?? 'user', password: 'set' } }),
      })
      savedLines(account, generated ? password : undefined)
      return 0
    } finally {
      await store.close()
    }
  },
}

/** The same verbs through the running server's admin API; the same lines out. */
async function throughApi(
  api: AdminApiClient,
  action: string | undefined,
  username: string,
  input: { scopes: string[] | undefined; role: string | undefined; values: Record<string, string | boolean | undefined> },
): Promise<number> {
  const path = `/accounts/${segment(username)}`
  switch (action) {
    case 'list':
      for await (const account of api.list<AccountLine>('/accounts', {}, 'listing the accounts')) process.stdout.write(listLine(account))
      return 0
    case 'set-scopes': {
      const { body } = await api.call<AccountLine>('PATCH', path, { body: { scopes: input.scopes ?? 'default' }, what: `changing the scopes of ${username}` })
      process.stdout.write(scopesLine(body))
      return 0
    }
    case 'set-role': {
      const { body } = await api.call<AccountLine>('PATCH', path, { body: { role: input.role }, what: `changing the role of ${username}` })
      process.stdout.write(roleLine(body))
      return 0
    }
    case 'disable':
    case 'enable': {
      const { headers } = await api.call('PATCH', path, { body: { disabled: action === 'disable' }, what: `${action === 'disable' ? 'disabling' : 'enabling'} ${username}` })
      process.stdout.write(endedLine(username, action, Number(headers.get('x-grants-ended') ?? '0')))
      return 0
    }
    case 'delete': {
      const { body } = await api.call<{ grants_ended?: number }>('DELETE', path, { what: `deleting ${username}` })
      process.stdout.write(endedLine(username, action, body?.grants_ended ?? 0))
      return 0
    }
    case 'password-link': {
      const { body } = await api.call<{ url: string; expires_at: string }>('POST', `${path}/password-link`, { what: `a set-password link for ${username}` })
      process.stdout.write(linkLine(username, body))
      return 0
    }
  }
  const { values } = input
  const { password, generated } = await passwordToSet(values)
  const claims = claimsOf(values)
  try {
    const { body } = await api.call<{ account: { username: string; id: string } }>('POST', '/accounts', {
      body: {
        username,
        password,
        ...(typeof claims.name === 'string' ? { name: claims.name } : {}),
        ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
        ...(input.scopes !== undefined ? { scopes: input.scopes } : {}),
        ...(values.admin === true ? { role: 'admin' } : {}),
      },
      what: `adding ${username}`,
    })
    savedLines(body.account, generated ? password : undefined)
    return 0
  } catch (error) {
    // the local modes set a new password here; through the API the person sets it by a link
    if (error instanceof AdminApiError && error.code === 'account_exists') {
      throw new Error(`${error.message}. To give it a new password, hand its owner a link: mcp-auth users password-link ${username} --server ${api.issuer}`, { cause: error })
    }
    throw error
  }
}

/** The password of `add`: stdin (--password-stdin), MCP_AUTH_PASSWORD, else a random one to print once. */
async function passwordToSet(values: Record<string, string | boolean | undefined>): Promise<{ password: string; generated: boolean }> {
  const given = values['password-stdin'] === true ? await readStdin() : process.env['MCP_AUTH_PASSWORD']
  if (given !== undefined && given !== '') return { password: given, generated: false }
  return { password: randomBytes(12).toString('base64url'), generated: true }
}

function claimsOf(values: Record<string, string | boolean | undefined>): Account['claims'] {
  return {
    ...(typeof values.name === 'string' ? { name: values.name } : {}),
    ...(typeof values.email === 'string' ? { email: values.email, email_verified: false } : {}),
  }
}

function savedLines(account: { username: string; id: string }, generated: string | undefined): void {
  process.stdout.write(`account ${account.username} (${account.id}) saved\n`)
  if (generated !== undefined) process.stdout.write(`password: ${generated}\n(shown once; it is stored only as a hash)\n`)
}
