import { AccountValuesStore } from '../../auth/server/stores/account-values-store.js'
import { openAccountValues } from '../../auth/server/stores/open-account-values.js'
import { adminApiClient, SERVER_OPTIONS, segment, serverUsage, type AdminApiClient } from '../admin-api-client.js'
import { ADMIN_OPTIONS, adminTarget, adminUsage, refuseBesideServer } from '../admin-server.js'
import { CLIENT_USAGE } from '../client-auth.js'
import { UsageError, type Command } from '../command.js'

/** The first line of stdin, without its line end. */
async function firstStdinLine(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? ''
}

const ACTIONS = ['set', 'unset', 'list'] as const

export const userEnvCommand: Command = {
  name: 'user-env',
  summary: "set, unset or list per-account values handed to the gateway's children as environment variables",
  usage: `
Usage: mcp-auth user-env set <username> NAME [--value-stdin] [STORE]
       mcp-auth user-env unset <username> NAME [STORE]
       mcp-auth user-env list <username> [STORE]
       (--subject SUB in place of <username> for an account of another authorization server)
STORE: --server URL [login options]   a running server, through its admin API (usernames only)
       [--data-dir DIR] [--config FILE] [--redis URL] [--redis-prefix P]

Values an operator sets per account (an API key per user): the gateway starts that account's
children with them in their environment. Each is stored sealed with the data key, bound to its
account and name. <username> is a local account (its id is the token's 'sub'); for accounts that
live at another authorization server give the subject as that server puts it in 'sub'.

'set' reads the value from the first line of stdin with --value-stdin, else from the environment
variable MCP_AUTH_VALUE; never from the command line, which other users of the host can read.
NAME is an environment variable's name in upper case (A-Z, 0-9, _); the MCP_AUTH_* names, PATH,
HOME, NODE_OPTIONS, LD_PRELOAD, LD_LIBRARY_PATH and DYLD_* are refused. 'list' shows names and
when each was set, never values. With --server URL the running server acts (you log in as an
administrator). Without it, a single server's data directory admits one process: a running
server refuses it (add --server URL, or stop it). With Redis the command acts on the deployment's store while the nodes run (run it with a
node's --data-dir: its secrets.json seals the values).

Options:
  --subject SUB      the account's subject at another authorization server
  --value-stdin      with set: read the value from the first line of stdin
${serverUsage(21)}${adminUsage(21)}  -h, --help         show this help
${CLIENT_USAGE}`,
  options: {
    subject: { type: 'string' },
    'value-stdin': { type: 'boolean' },
    ...ADMIN_OPTIONS,
    ...SERVER_OPTIONS,
  },
  allowPositionals: true,
  interruptible: true,
  async run(values, positionals, { signal }) {
    const [action, ...rest] = positionals
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number])) throw new UsageError("expected 'set', 'unset' or 'list'")
    const bySubject = typeof values.subject === 'string'
    const [user, name, ...extra] = bySubject ? [values.subject as string, ...rest] : rest
    // usernames and names hold no '=': this is a value typed where everyone on the host can read it
    const assigned = rest.find((word) => word.includes('='))
    if (assigned !== undefined) {
      const named = assigned.slice(0, assigned.indexOf('='))
      throw new Error(
        `${named}=… on the command line: values never come from it (other users of the host can read it in ps). Pipe the value with --value-stdin, or set MCP_AUTH_VALUE: mcp-auth user-env set <username> ${named || 'NAME'} --value-stdin`,
      )
    }
    const who = bySubject ? '--subject SUB' : '<username>'
    if (user === undefined || user === '') throw new UsageError(`expected ${who}`)
    if (action === 'list' ? name !== undefined : name === undefined || extra.length > 0) {
      throw new UsageError(action === 'list' ? `'list' takes ${who} only` : `'${action}' takes ${who} and one NAME`)
    }
    if (name !== undefined) AccountValuesStore.checkName(name)
    const api = adminApiClient(values, { signal })
    if (api !== undefined) {
      if (bySubject) throw new UsageError('--subject is for the local modes: the admin API names local accounts by username')
      return throughApi(api, action as (typeof ACTIONS)[number], user, name, values['value-stdin'] === true)
    }
    const target = await adminTarget(values)
    const store = await openAccountValues({ dataDir: target.dataDir, ...(target.redis !== undefined ? { redis: target.redis } : {}) }).catch(refuseBesideServer)
    try {
      const subject = bySubject ? user : (await store.accounts.findByUsername(user))?.id
      if (subject === undefined) {
        throw new Error(`no local account named ${user}: for an account of another authorization server, give its subject with --subject SUB`)
      }
      const value = action === 'set' ? await valueToSet(values['value-stdin'] === true) : undefined
      const whose = bySubject ? `subject ${subject}` : `${user} (${subject})`
      if (action === 'list') {
        for (const entry of await store.values.names(subject)) process.stdout.write(`${entry.name}\tset ${new Date(entry.setAt).toISOString()}\n`)
        return 0
      }
      if (action === 'set') {
        await store.values.set(subject, name!, value!)
        process.stdout.write(`${name} set for ${whose}\n`)
        return 0
      }
      if (!(await store.values.unset(subject, name!))) throw new Error(`${whose} holds no ${name}`)
      process.stdout.write(`${name} unset for ${whose}\n`)
      return 0
    } finally {
      await store.close()
    }
  },
}

/** The same verbs through the running server's admin API; the same lines out. */
async function throughApi(api: AdminApiClient, action: (typeof ACTIONS)[number], username: string, name: string | undefined, fromStdin: boolean): Promise<number> {
  const path = `/accounts/${segment(username)}`
  const value = action === 'set' ? await valueToSet(fromStdin) : undefined
  if (action === 'list') {
    const { body } = await api.call<{ items: Array<{ name: string; updated_at?: string }> }>('GET', `${path}/values`, { what: `the values of ${username}` })
    for (const entry of body.items) process.stdout.write(`${entry.name}\tset ${entry.updated_at ?? '-'}\n`)
    return 0
  }
  const { body: account } = await api.call<{ id: string }>('GET', path, { what: `the account ${username}` })
  const whose = `${username} (${account.id})`
  const at = `${path}/values/${segment(name!)}`
  if (action === 'set') await api.call('PUT', at, { body: { value }, what: `setting ${name} for ${username}` })
  else await api.call('DELETE', at, { what: `unsetting ${name} for ${username}` })
  process.stdout.write(`${name} ${action} for ${whose}\n`)
  return 0
}

async function valueToSet(fromStdin: boolean): Promise<string> {
  const value = fromStdin ? await firstStdinLine() : process.env['MCP_AUTH_VALUE']
  if (value === undefined || value === '') {
    throw new Error(fromStdin ? 'stdin gave an empty first line: the value is required' : 'no value: pipe it with --value-stdin, or set MCP_AUTH_VALUE')
  }
  return value
}
