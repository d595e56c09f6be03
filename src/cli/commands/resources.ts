import { ResourceStore } from '../../auth/server/stores/resource-store.js'
import { defaults } from '../../config/defaults.js'
import { adminApiClient, SERVER_OPTIONS, serverUsage, type AdminApiClient } from '../admin-api-client.js'
import { AdminApiError } from '../admin-api-error.js'
import { ADMIN_OPTIONS, adminUsage, adminTarget, openAdminRecords } from '../admin-server.js'
import { CLIENT_USAGE } from '../client-auth.js'
import { UsageError, type Command } from '../command.js'
import { parseScopes } from '../scope-list.js'

/** A resource as both modes print it (the admin API's view; the store's record made into it). */
interface ResourceLine {
  uri: string
  name?: string
  scopes: readonly string[]
  default_scopes: readonly string[]
  access_token_ttl_seconds?: number
  token_format?: string
  aliases?: readonly string[]
  /** configured, stored or built-in (the admin API lists all three; the local mode the stored ones). */
  source?: string
}

/** `<uri>  name  scopes: …  default: …  [tokens N s]  [opaque]  [aliases: …]  [(configured)]`, tab-separated. */
function resourceLine(resource: ResourceLine): string {
  const lifetimeText = resource.access_token_ttl_seconds === undefined ? '' : `\ttokens ${resource.access_token_ttl_seconds} s`
  const aliasText = resource.aliases === undefined || resource.aliases.length === 0 ? '' : `\taliases: ${resource.aliases.join(' ')}`
  const sourceText = resource.source === undefined || resource.source === 'stored' ? '' : `\t(${resource.source})`
  return `${resource.uri}\t${resource.name ?? '-'}\tscopes: ${resource.scopes.join(' ')}\tdefault: ${resource.default_scopes.join(' ')}${lifetimeText}${resource.token_format === 'opaque' ? '\topaque' : ''}${aliasText}${sourceText}\n`
}

const savedLine = (resource: ResourceLine, everyNode: boolean): string =>
  `resource ${resource.uri} saved: scopes ${resource.scopes.join(' ')} (default ${resource.default_scopes.join(' ')}); ${everyNode ? 'served by every node now' : 'served from the next start'}\n`
const removedLine = (uri: string): string => `resource ${uri} removed (tokens already issued for it stay valid until they expire)\n`

function noResource(uri: string): number {
  process.stderr.write(`mcp-auth resources: no stored resource ${uri} (resources of a configuration file or --resource are not stored)\n`)
  return 1
}

/** The admin API's id of a resource: its URI in base64url. */
export const resourceId = (uri: string): string => Buffer.from(uri).toString('base64url')

export const resourcesCommand: Command = {
  name: 'resources',
  summary: 'add, list or remove the protected MCP servers the authorization server issues tokens for',
  usage: `
Usage: mcp-auth resources add <url> [--scopes "SCOPE ..."] [--default-scopes "SCOPE ..."] [--name NAME]
                              [--token-lifetime SECONDS] [--opaque] [--aliases "URL ..."] [STORE]
       mcp-auth resources list [STORE]
       mcp-auth resources remove <url> [STORE]
STORE: --server URL [login options]   a running server, through its admin API
       [--data-dir DIR] [--config FILE] [--redis URL] [--redis-prefix P]

A resource is an MCP server's URL (its protected resource metadata 'resource', e.g.
http://localhost:4160/mcp): tokens name it as their audience, and clients ask for it with the
'resource' parameter. 'add' stores one in the data directory (or replaces it), beside those of
the configuration file or --resource, which come first. With --server URL the running server
stores it (you log in as an administrator) and serves it at once, on every node; 'list' then
shows the configured and built-in resources too. Without it, a single server reads them when it
starts: a running server refuses it (add --server URL, or stop it). With Redis (--redis, several
nodes) the running nodes serve a resource added or removed at once, without a restart.

Options:
  --scopes "S ..."          scopes the resource offers (default: ${defaults.authServer.resourceScopes.join(' ')})
  --default-scopes "S ..."  granted when a request names no scope, and what a new account may have
                            (default: the first of --scopes)
  --name NAME               shown on the consent page beside the URL
  --token-lifetime SECONDS  access-token lifetime for this resource (default ${defaults.authServer.ttl.accessToken})
  --opaque                  opaque access tokens (checked by introspection) instead of JWTs
  --aliases "URL ..."       other endpoint URLs of the same MCP server (e.g. its /sse and /rest):
                            tokens for them too, with these settings, and one login covers all
${serverUsage(28)}${adminUsage(28)}  -h, --help                show this help
${CLIENT_USAGE}`,
  options: {
    scopes: { type: 'string' },
    'default-scopes': { type: 'string' },
    name: { type: 'string' },
    'token-lifetime': { type: 'string' },
    opaque: { type: 'boolean' },
    aliases: { type: 'string' },
    ...ADMIN_OPTIONS,
    ...SERVER_OPTIONS,
  },
  allowPositionals: true,
  interruptible: true,
  async run(values, positionals, { signal }) {
    const [action, url, ...extra] = positionals
    if (action !== 'add' && action !== 'list' && action !== 'remove') throw new UsageError("expected 'add <url>', 'list' or 'remove <url>'")
    if (extra.length > 0 || (action === 'list') !== (url === undefined)) throw new UsageError(action === 'list' ? "'list' takes no arguments" : `'${action}' takes exactly one URL`)
    let lifetime: number | undefined
    if (typeof values['token-lifetime'] === 'string') {
      lifetime = Number(values['token-lifetime'])
      if (!Number.isInteger(lifetime) || lifetime <= 0) throw new UsageError('--token-lifetime takes a whole number of seconds')
    }
    const api = adminApiClient(values, { signal })
    if (api !== undefined) return throughApi(api, action, url, values, lifetime)
    const store = await openAdminRecords(await adminTarget(values))
    try {
      const resources = new ResourceStore(store.records, store.bus)
      if (action === 'list') {
        for (const resource of await resources.list()) process.stdout.write(resourceLine(fromRecord(resource)))
        return 0
      }
      if (action === 'remove') {
        if (!(await resources.remove(url!))) return noResource(url!)
        store.audit.record({ type: 'resource.removed', result: 'success', resource: url! })
        process.stdout.write(removedLine(url!))
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
      store.audit.record({ type: (added.rev ?? 0) > 0 ? 'resource.changed' : 'resource.added', result: 'success', resource: added.uri, scopes: added.scopes })
      process.stdout.write(savedLine(fromRecord(added), store.bus !== undefined))
      return 0
    } finally {
      await store.close()
    }
  },
}

function fromRecord(resource: {
  uri: string
  name?: string
  scopes: readonly string[]
  defaultScopes: readonly string[]
  accessTokenTtlSeconds?: number
  tokenFormat?: string
  aliases?: readonly string[]
}): ResourceLine {
  return {
    uri: resource.uri,
    ...(resource.name !== undefined ? { name: resource.name } : {}),
    scopes: resource.scopes,
    default_scopes: resource.defaultScopes,
    ...(resource.accessTokenTtlSeconds !== undefined ? { access_token_ttl_seconds: resource.accessTokenTtlSeconds } : {}),
    ...(resource.tokenFormat !== undefined ? { token_format: resource.tokenFormat } : {}),
    ...(resource.aliases !== undefined ? { aliases: resource.aliases } : {}),
  }
}

/** list, add and remove through the running server's admin API (GET/POST /resources, DELETE /resources/{id}); the same lines out. */
async function throughApi(
  api: AdminApiClient,
  action: 'add' | 'list' | 'remove',
  url: string | undefined,
  values: Record<string, string | boolean | undefined>,
  lifetime: number | undefined,
): Promise<number> {
  if (action === 'list') {
    const { body } = await api.call<{ items: ResourceLine[] }>('GET', '/resources', { what: 'listing the resources' })
    for (const resource of body.items) process.stdout.write(resourceLine(resource))
    return 0
  }
  if (action === 'remove') {
    try {
      await api.call('DELETE', `/resources/${resourceId(url!)}`, { what: `removing the resource ${url}` })
    } catch (error) {
      if (error instanceof AdminApiError && error.status === 404 && error.kind === 'not-found') return noResource(url!)
      throw error
    }
    process.stdout.write(removedLine(url!))
    return 0
  }
  const { body } = await api.call<ResourceLine | { resource: ResourceLine }>('POST', '/resources', {
    body: {
      uri: url,
      ...(typeof values['scopes'] === 'string' ? { scopes: parseScopes(values['scopes']) } : {}),
      ...(typeof values['default-scopes'] === 'string' ? { default_scopes: parseScopes(values['default-scopes']) } : {}),
      ...(typeof values['name'] === 'string' ? { name: values['name'] } : {}),
      ...(lifetime !== undefined ? { access_token_ttl_seconds: lifetime } : {}),
      ...(values['opaque'] === true ? { token_format: 'opaque' } : {}),
      ...(typeof values['aliases'] === 'string' ? { aliases: values['aliases'].split(/\s+/).filter((alias) => alias !== '') } : {}),
    },
    what: `adding the resource ${url}`,
  })
  process.stdout.write(savedLine('resource' in body ? body.resource : body, true))
  return 0
}
