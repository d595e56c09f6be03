import type { Middleware } from 'koa'
import { homePage, type HomePageOptions } from './home-page.js'

/**
 * Koa middleware serving the home page at `/` (see `homePage`); every other request goes on.
 * @example
 * app.use(homePageMiddleware({ origin: 'http://localhost:4000', resource: 'http://localhost:4000/mcp' }))
 */
export function homePageMiddleware(options: HomePageOptions): Middleware {
  const serve = homePage(options)
  return async function homePageRoute(ctx, next) {
    if (!serve(ctx.req, ctx.res)) return next()
    ctx.respond = false
  }
}
