import { ResourceStore } from '../../auth/server/stores/resource-store.js'
import { defaults } from '../../config/defaults.js'
import { ADMIN_OPTIONS, adminUsage, adminTarget, openAdminRecords } from '../admin-server.js'
import { UsageError, type Command } from '../command.js'
import { parseScopes } from '../scope-list.js'

export const resourcesCommand: Command = {
  name: 'resources',
  summary: 'add, list or remove the protected MCP servers the authorization server issues tokens for',
  usage: `
Usage: mcp-auth resources add <url> [--scopes "SCOPE ..."] [--default-scopes "SCOPE ..."] [--name NAME]
                              [--token-lifetime SECONDS] [--opaque] [--aliases "URL ..."] [STORE]
       mcp-auth resources list [STORE]
       mcp-auth resources remove <url> [STORE]
STORE: [--data-dir DIR] [--config FILE] [--redis URL] [--redis-prefix P]

A resource is an MCP server's URL (its protected resource metadata 'resource', e.g.
http://localhost:4160/mcp): tokens name it as their audience, and clients ask for it with the
'resource' parameter. 'add' stores one in the data directory (or replaces it), beside those of
the configuration file or --resource, which come first. A single server reads them when it
starts: stop it first (its store refuses a second writer), or pass --resource to 'start' /
'auth-server' instead. With Redis (--redis, several nodes) the running nodes serve a resource
added or removed at once, without a restart.

Options:
  --scopes "S ..."          scopes the resource offers (default: ${defaults.authServer.resourceScopes.join(' ')})
  --default-scopes "S ..."  granted when a request names no scope, and what a new account may have
                            (default: the first of --scopes)
  --name NAME               shown on the consent page beside the URL
  --token-lifetime SECONDS  access-token lifetime for this resource (default ${defaults.authServer.ttl.accessToken})
  --opaque                  opaque access tokens (checked by introspection) instead of JWTs
  --aliases "URL ..."       other endpoint URLs of the same MCP server (e.g. its /sse and /rest):
                            tokens for them too, with these settings, and one login covers all
${adminUsage(28)}  -h, --help                show this help
`,
  options: {
    scopes: { type: 'string' },
    'default-scopes': { type: 'string' },
    name: { type: 'string' },
    'token-lifetime': { type: 'string' },
    opaque: { type: 'boolean' },
    aliases: { type: 'string' },
    ...ADMIN_OPTIONS,
  },
  allowPositionals: true,
  async run(values, positionals) {
    const [action, url, ...extra] = positionals
    if (action !== 'add' && action !== 'list' && action !== 'remove') throw new UsageError("expected 'add <url>', 'list' or 'remove <url>'")
    if (extra.length > 0 || (action === 'list') !== (url === undefined)) throw new UsageError(action === 'list' ? "'list' takes no arguments" : `'${action}' takes exactly one URL`)
    let lifetime: number | undefined
    if (typeof values['token-lifetime'] === 'string') {
      lifetime = Number(values['token-lifetime'])
      if (!Number.isInteger(lifetime) || lifetime <= 0) throw new UsageError('--token-lifetime takes a whole number of seconds')
    }
    const store = await openAdminRecords(await adminTarget(values))
    try {
      const resources = new ResourceStore(store.records, store.bus)
      if (action === 'list') {
        for (const resource of await resources.list()) {
          const lifetimeText = resource.accessTokenTtlSeconds === undefined ? '' : `\ttokens ${resource.accessTokenTtlSeconds} s`
          const aliasText = resource.aliases === undefined ? '' : `\taliases: ${resource.aliases.join(' ')}`
          process.stdout.write(
            `${resource.uri}\t${resource.name ?? '-'}\tscopes: ${resource.scopes.join(' ')}\tdefault: ${resource.defaultScopes.join(' ')}${lifetimeText}${resource.tokenFormat === 'opaque' ? '\topaque' : ''}${aliasText}\n`,
          )
        }
        return 0
      }
      if (action === 'remove') {
        if (!(await resources.remove(url!))) {
          process.stderr.write(`mcp-auth resources: no stored resource ${url} (resources of a configuration file or --resource are not stored)\n`)
          return 1
        }
        process.stdout.write(`resource ${url} removed (tokens already issued for it stay valid until they expire)\n`)
        return 0
      }
      let added
      try {
        added = await resources.add({
          uri: url!,
          ...(typeof values.scopes === 'string' ? { scopes: parseScopes(values.scopes) } : {}),
          ...(typeof values['default-scopes'] === 'string' ? { defaultScopes: parseScopes(values['default-scopes']) } : {}),
          ...(typeof values.name === 'string' ? { name: values.name } : {}),
          ...(lifetime !== undefined ? { accessTokenTtlSeconds: lifetime } : {}),
          ...(values.opaque === true ? { tokenFormat: 'opaque' as const } : {}),
          ...(typeof values.aliases === 'string' ? { aliases: values.aliases.split(/\s+/).filter((alias) => alias !== '') } : {}),
        })
      } catch (error) {
        if (error instanceof TypeError) throw new UsageError(error.message)
        throw error
      }
      process.stdout.write(
        `resource ${added.uri} saved: scopes ${added.scopes.join(' ')} (default ${added.defaultScopes.join(' ')}); ${store.bus === undefined ? 'served from the next start' : 'served by every node now'}\n`,
      )
      return 0
    } finally {
      await store.close()
    }
  },
}
