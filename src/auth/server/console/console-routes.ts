import type { Context, Middleware, Next } from 'koa'
import { scoped } from '../middleware/scoped-middleware.js'
import { serveAccountPage } from './account-page.js'
import { serveAdminConsole } from './admin-console.js'
import type { ConsoleDeps } from './console-deps.js'
import { servePasswordPage } from './password-page.js'
import { serveSetupPage } from './setup-page.js'

export type { ConsoleDeps } from './console-deps.js'

const under = (path: string, base: string): boolean => path === base || path.startsWith(`${base}/`)

/**
 * The console's pages on the authorization server: `${mountPath}/admin` (but not `/admin/api`,
 * the admin API's) for administrators, `${mountPath}/account` for everyone who signs in, and the
 * one-time pages (`/admin/password/{token}`, `/admin/setup/{token}`) for whoever holds the link. Server-rendered, CSRF
 * and same-origin checked forms, the strict headers of every page of ours.
 */
export function consoleRoutes(deps: ConsoleDeps): Middleware {
  const admin = deps.surfaces.admin.basePath
  const account = deps.surfaces.account.basePath
  const api = `${admin}/api`
  const escaped = admin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const oneTime = new RegExp(`^${escaped}/(password|setup)/([A-Za-z0-9_-]{1,100})$`)
  const applies = (path: string): boolean => (under(path, admin) && !under(path, api)) || under(path, account)
  return scoped(applies, async function consoleRoutes(ctx: Context, next: Next): Promise<void> {
    const link = oneTime.exec(ctx.path)
    if (link !== null) {
      if (ctx.method !== 'GET' && ctx.method !== 'POST') {
        ctx.status = 405
        return
      }
      return link[1] === 'setup' ? serveSetupPage(ctx, deps, link[2]!) : servePasswordPage(ctx, deps, link[2]!)
    }
    if (under(ctx.path, account)) return serveAccountPage(ctx, next, deps)
    return serveAdminConsole(ctx, next, deps)
  })
}
