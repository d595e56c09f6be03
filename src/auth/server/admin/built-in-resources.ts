import { defaults } from '../../../config/defaults.js'
import type { ResolvedResource } from '../options.js'

const a = defaults.authServer.admin

/** The identifiers of the server's own resources, from its issuer (no trailing slash on the path). */
export interface BuiltInResourceIds {
  /** The admin API (`${issuer}/admin/api`): scope `mcp-auth:admin`, administrators and designated machines only. */
  admin: string
  /** People's own page (`${issuer}/account`): scope `mcp-auth:account`, every account, no machine. */
  account: string
}

export function builtInResourceIds(issuer: URL): BuiltInResourceIds {
  const base = issuer.href.replace(/\/$/, '')
  return { admin: `${base}${a.apiPath}`, account: `${base}${a.accountPath}` }
}

/**
 * The resources the server serves itself, after the configured and stored ones (never the
 * default resource): the admin API and people's own page. Their scopes are granted by role, not
 * by an account's scope list (ScopePolicy).
 */
export function builtInResources(issuer: URL): ResolvedResource[] {
  const ids = builtInResourceIds(issuer)
  return [
    {
      uri: ids.admin,
      name: 'Administration',
      description: 'The administration API and console of this authorization server',
      scopes: [a.scope],
      defaultScopes: [a.scope],
      scopeDescriptions: { [a.scope]: 'Administer this server as you: accounts, clients, grants, resources and keys' },
      tokenFormat: 'jwt',
      accessTokenTtlSeconds: a.accessTokenTtlSeconds,
    },
    {
      uri: ids.account,
      name: 'Your account',
      description: 'Your own page on this server: the applications you allowed, your password',
      scopes: [a.accountScope],
      defaultScopes: [a.accountScope],
      scopeDescriptions: { [a.accountScope]: 'See and end the access you gave applications, and change your password' },
      tokenFormat: 'jwt',
      accessTokenTtlSeconds: a.accessTokenTtlSeconds,
    },
  ]
}
