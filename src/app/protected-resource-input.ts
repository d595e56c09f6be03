import type { ResourceInput } from '../auth/server/options.js'
import { defaults } from '../config/defaults.js'

/** What the authorization server and the consent page say of the protected MCP server, and its scopes. */
export interface ProtectedResourceSpec {
  name: string
  description?: string
  /** Scopes the resource offers (its metadata's `scopes_supported`). */
  scopes: readonly string[]
  /** Scopes every request needs (and a token gets by default). */
  requiredScopes: readonly string[]
  /** Extra scopes per tool (a call without them gets 403 insufficient_scope naming them). */
  toolScopes?: Readonly<Record<string, readonly string[]>>
  /** Fair use per principal (createProtectedMcpApp's `rateLimit`); default the configuration's resource entry, else on with the defaults. */
  rateLimit?: ResourceInput['rateLimit']
  /** The audit of allowed calls (createProtectedMcpApp's `audit`); default the configuration's resource entry. */
  audit?: ResourceInput['audit']
}

/**
 * How our authorization server knows one protected MCP server on the origin: `${origin}${prefix}/mcp`
 * with its scopes (the required ones by default), and its `/sse` and `/rest` as aliases: the same
 * server, so tokens for them and one login for all three (issue 28, item 2).
 */
export function protectedResourceInput(origin: string, prefix: string, spec: ProtectedResourceSpec, requireDpop: boolean): ResourceInput {
  const resource: ResourceInput = {
    uri: `${origin}${prefix}${defaults.streamableHttp.path}`,
    scopes: [...spec.scopes],
    defaultScopes: [...spec.requiredScopes],
    name: spec.name,
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    aliases: [`${origin}${prefix}${defaults.legacySse.ssePath}`, `${origin}${prefix}${defaults.statelessJson.path}`],
  }
  // the MCP server refuses Bearer tokens: the authorization server issues it none (issue 27, item 3)
  if (requireDpop) resource.requireDpop = true
  return resource
}
