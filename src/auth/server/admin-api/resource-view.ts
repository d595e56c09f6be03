import type { ResolvedResource, ResourceInput } from '../options.js'
import type { StoredResource } from '../stores/resource-store.js'
import { etagOf } from './etag.js'

/** Where a resource comes from: its `source` in the admin API. */
export type ResourceSource = 'configured' | 'stored' | 'built-in'

/** The admin API's id of a resource: its URI, base64url-encoded. */
export const resourceId = (uri: string): string => Buffer.from(uri, 'utf8').toString('base64url')

/** The URI an id names (undefined when it names none: not base64url of a URL). */
export function resourceUri(id: string): string | undefined {
  const uri = Buffer.from(id, 'base64url').toString('utf8')
  return resourceId(uri) === id && URL.canParse(uri) ? uri : undefined
}

/** A resource as the admin API shows it (snake_case, its source; a stored one with its ETag). */
export function resourceView(resource: ResolvedResource | StoredResource, source: ResourceSource, served = true): Record<string, unknown> {
  const stored = 'addedAt' in resource ? resource : undefined
  return {
    id: resourceId(resource.uri),
    uri: resource.uri,
    source,
    ...(source === 'stored' ? { served } : {}),
    ...(resource.name !== undefined ? { name: resource.name } : {}),
    ...(resource.description !== undefined ? { description: resource.description } : {}),
    scopes: resource.scopes,
    default_scopes: resource.defaultScopes,
    ...(resource.scopeDescriptions !== undefined ? { scope_descriptions: resource.scopeDescriptions } : {}),
    token_format: resource.tokenFormat,
    ...(resource.accessTokenTtlSeconds !== undefined ? { access_token_ttl_seconds: resource.accessTokenTtlSeconds } : {}),
    ...(resource.requireDpop === true ? { require_dpop: true } : {}),
    ...(resource.aliases !== undefined ? { aliases: resource.aliases } : {}),
    ...(stored !== undefined ? { added_at: new Date(stored.addedAt).toISOString(), etag: etagOf(stored) } : {}),
  }
}

/** What the API's snake_case body says, as the store's input. */
export function resourceInput(body: Record<string, unknown>, uri: string): ResourceInput {
  const pick = <T>(name: string): T | undefined => body[name] as T | undefined
  const entries: Array<[string, unknown]> = [
    ['uri', uri],
    ['name', pick('name')],
    ['description', pick('description')],
    ['scopes', pick('scopes')],
    ['defaultScopes', pick('default_scopes')],
    ['scopeDescriptions', pick('scope_descriptions')],
    ['tokenFormat', pick('token_format')],
    ['accessTokenTtlSeconds', pick('access_token_ttl_seconds')],
    ['requireDpop', pick('require_dpop')],
    ['aliases', pick('aliases')],
  ]
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined)) as ResourceInput
}
