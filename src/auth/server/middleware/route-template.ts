import type { Context, Middleware, Next } from 'koa'
import { defaults } from '../../../config/defaults.js'
import { noteCaller, noteRoute, requestRecord } from '../../../observe/request-record.js'
import { adminApiDocument } from '../admin-api/openapi/document.js'

/** Where the server's own pages sit (each under the issuer's path). */
export interface RouteTemplateOptions {
  mountPath: string
}

interface Template {
  pattern: RegExp
  template: string
}

/**
 * Notes the route template of every request to the authorization server (for the access line, the
 * metrics and the spans), never the raw path: a path may carry an interaction id, a one-time link's
 * token or a username. Our own pages and the admin API are matched here, before anything answers;
 * oidc-provider's endpoints by the route its router matched, after it answered; anything else is
 * left unnoted (`unmatched`). After the answer it also notes the client and the account oidc-provider
 * dealt with, when there were ones.
 */
export function routeTemplate(options: RouteTemplateOptions): Middleware {
  const templates = ourTemplates(options.mountPath)
  const providerBase = options.mountPath
  const admin = defaults.authServer.admin
  // a token or registration request matches none of ours: it is not tried against them
  const ours = [
    '/.well-known/',
    `${options.mountPath}/.well-known/`,
    `${options.mountPath}${admin.consolePath}`,
    `${options.mountPath}${admin.accountPath}`,
    `${options.mountPath}${defaults.authServer.interactionPath}/`,
  ]
  return async function routeTemplate(ctx: Context, next: Next): Promise<void> {
    // not observed (a library caller without an observer): nothing to note
    if (requestRecord(ctx.req) === undefined) return next()
    const path = ctx.path
    if (ours.some((prefix) => path.startsWith(prefix)) || path.endsWith('/openid-configuration')) {
      for (const { pattern, template } of templates) {
        if (pattern.test(path)) {
          noteRoute(ctx.req, template)
          break
        }
      }
    }
    try {
      await next()
    } finally {
      const matched = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute
      if (typeof matched === 'string') noteRoute(ctx.req, `${providerBase}${matched.replace(/:([A-Za-z_]+)/g, '{$1}')}`)
      const entities = (ctx as Context & { oidc?: { entities?: OidcEntities } }).oidc?.entities
      if (entities !== undefined) noteCaller(ctx.req, { clientId: entities.Client?.clientId, subject: entities.Account?.accountId ?? entities.Session?.accountId })
    }
  }
}

/** What oidc-provider loaded for a request (only what we read of it). */
interface OidcEntities {
  Client?: { clientId?: string }
  Account?: { accountId?: string }
  Session?: { accountId?: string }
}

/** Our own routes as templates, most specific first. */
function ourTemplates(mountPath: string): Template[] {
  const admin = defaults.authServer.admin
  const interaction = `${mountPath}${defaults.authServer.interactionPath}`
  const pages = `${mountPath}${admin.consolePath}`
  const account = `${mountPath}${admin.accountPath}`
  const api = `${mountPath}${admin.apiPath}`
  const exact = (path: string): Template => ({ pattern: new RegExp(`^${escapeRegExp(path)}$`), template: path })
  const param = (template: string): Template => ({
    pattern: new RegExp(
      `^${template
        .split(/\{[^}]+\}/)
        .map(escapeRegExp)
        .join('[^/]+')}$`,
    ),
    template,
  })
  const apiPaths = Object.keys(adminApiDocument('http://localhost').paths as Record<string, unknown>)
  return [
    // metadata at every address a client tries (RFC 8414 path-inserted, OIDC)
    exact('/.well-known/oauth-authorization-server'),
    { pattern: /^\/\.well-known\/oauth-authorization-server\/./, template: '/.well-known/oauth-authorization-server/{path}' },
    exact(`${mountPath}/.well-known/openid-configuration`),
    { pattern: /^\/\.well-known\/openid-configuration/, template: '/.well-known/openid-configuration' },
    { pattern: /\/\.well-known\/openid-configuration$/, template: '/{path}/.well-known/openid-configuration' },
    // the admin API by its OpenAPI templates (`/admin/api/accounts/{username}`), then its own documents
    exact(`${api}/openapi.json`),
    exact(api),
    ...apiPaths.map((path) => param(`${api}${path}`)),
    { pattern: new RegExp(`^${escapeRegExp(api)}/`), template: `${api}/{unknown}` },
    // the one-time links: the token in the path is a secret
    param(`${pages}/password/{token}`),
    param(`${pages}/setup/{token}`),
    // the console's pages
    exact(pages),
    ...['/callback', '/signout', '/accounts', '/clients', '/resources', '/keys'].map((sub) => exact(`${pages}${sub}`)),
    param(`${pages}/accounts/{username}`),
    param(`${pages}/accounts/{username}/{action}`),
    param(`${pages}/clients/{client_id}`),
    param(`${pages}/clients/{client_id}/{action}`),
    param(`${pages}/grants/{grant}/revoke`),
    // people's own page
    exact(account),
    ...['/callback', '/password', '/signout'].map((sub) => exact(`${account}${sub}`)),
    param(`${account}/grants/{grant}/revoke`),
    // the login and consent pages
    param(`${interaction}/{uid}`),
    ...['login', 'confirm', 'abort', 'upstream'].map((action) => param(`${interaction}/{uid}/${action}`)),
  ]
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
