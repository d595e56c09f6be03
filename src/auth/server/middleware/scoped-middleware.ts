import type { Context, Middleware, Next } from 'koa'

/**
 * A middleware that says which requests it is for. Called on its own (any Koa app, koa-compose)
 * it checks that itself and passes the others on; {@link composeScoped} checks it before entering,
 * so a request never pays an async frame (a promise, and oidc-provider's async-context hooks on
 * it) for middleware that has nothing to do with it.
 */
export interface ScopedMiddleware extends Middleware {
  readonly appliesTo: Scope
  readonly handle: Middleware
}

/** Whether a middleware is for a request: its path (as rewritten so far) and method come read once. */
export type Scope = (path: string, method: string, ctx: Context) => boolean

/** `handle` for the requests `appliesTo` accepts; every other request goes straight on. */
export function scoped(appliesTo: Scope, handle: Middleware): ScopedMiddleware {
  const run = (ctx: Context, next: Next): unknown => (appliesTo(ctx.path, ctx.method, ctx) ? handle(ctx, next) : next())
  return Object.assign(run, { appliesTo, handle }) as ScopedMiddleware
}

const isScoped = (middleware: Middleware): middleware is ScopedMiddleware => typeof (middleware as Partial<ScopedMiddleware>).appliesTo === 'function'

/**
 * koa-compose, except that a {@link ScopedMiddleware} is skipped without being entered when it
 * does not apply. Whether it applies is asked when the request reaches it, so a path rewritten
 * by an earlier middleware is the path it sees.
 */
export function composeScoped(stack: readonly Middleware[]): Middleware {
  const entries = stack.map((middleware) => (isScoped(middleware) ? { appliesTo: middleware.appliesTo, handle: middleware.handle } : { appliesTo: undefined, handle: middleware }))
  return function composedScoped(ctx: Context, next?: Next): Promise<void> {
    let reached = -1
    // Koa's path is read from req.url (and setting it rewrites req.url): parsed again only when
    // an entered middleware changed the URL
    let url: string | undefined
    let path = ''
    const dispatch = (from: number): Promise<void> => {
      // a middleware's next() starts past it: a second call starts at or before what the first reached
      if (from <= reached) return Promise.reject(new Error('next() called multiple times'))
      if (ctx.req.url !== url || url === undefined) {
        url = ctx.req.url
        path = ctx.path
      }
      const method = ctx.method
      let i = from
      while (i < entries.length && entries[i]!.appliesTo?.(path, method, ctx) === false) i++
      reached = i
      if (i === entries.length) return next === undefined ? Promise.resolve() : Promise.resolve(next())
      try {
        return Promise.resolve(entries[i]!.handle(ctx, () => dispatch(i + 1)))
      } catch (error) {
        return Promise.reject(error)
      }
    }
    return dispatch(0)
  }
}
