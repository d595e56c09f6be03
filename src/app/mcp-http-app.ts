import type { IncomingMessage, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type Koa from 'koa'
import type { Middleware } from 'koa'
import { defaults } from '../config/defaults.js'
import { logError } from '../observe/log-error.js'
import type { Observer } from '../observe/observer.js'
import { noteRoute } from '../observe/request-record.js'
import type { SessionHost } from '../session-host/session-host.js'
import { LOOPBACK_HOSTS, isLoopbackHost } from '../transports/http/origin-policy.js'
import { LegacySseHandler } from '../transports/sse-legacy/server/index.js'
import { StatelessJsonHandler } from '../transports/stateless-json/index.js'
import { StreamableHttpHandler, type StreamableHttpOptions } from '../transports/streamable-http/server/index.js'

export interface McpHttpAppOptions extends Partial<Omit<StreamableHttpOptions, 'allowedHosts'>> {
  /** The interface the app is bound to; decides the default Host/Origin allow-list. */
  host: string
  /** Hosts accepted in Host/Origin; default: the loopback names when bound to loopback, else `host`. */
  allowedHosts?: readonly string[]
  path?: string
  /**
   * Put before every route (`${prefix}/mcp`, `${prefix}/sse`, `${prefix}/messages`, `${prefix}/rest`):
   * several servers on one origin (the gateway's `/<name>/mcp`). Default '' (none); when given,
   * it starts with `/` and does not end with one.
   */
  prefix?: string
  /**
   * Wraps every MCP route (Streamable HTTP, HTTP+SSE stream and messages, stateless JSON), e.g.
   * with the bearer check. The Koa app and the raw handler both go through the wrapped routes.
   * `path` is the route's own, without the prefix (`/messages` for the HTTP+SSE messages).
   */
  wrapRoute?: (route: McpRoute, path: string) => McpRoute
  /** Koa middleware for everything that is not an MCP route (e.g. the authorization server). */
  middleware?: readonly Middleware[]
  /** Endpoints served before the MCP routes (e.g. protected resource metadata); true when handled. */
  before?: (req: IncomingMessage, res: ServerResponse, path: string) => boolean
  /**
   * The Koa app trusts X-Forwarded-* (Koa's `proxy`): behind a proxy that overwrites them, the
   * middleware's per-address limits count each client's address, not the proxy's.
   */
  trustProxy?: boolean
  /** Where the app reports (its errors, through the observer's log); default: nothing reported. */
  observer?: Observer
}

/** One MCP transport entry point; `parsedBody` when a wrapper already read the body. */
export type McpRoute = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => Promise<void>

export interface McpHttpApp {
  /**
   * The Koa app: every transport mounted as middleware, plus whatever the caller adds. Made (and
   * Koa loaded) when first read or when `handler` first meets a path that is not an MCP route: a
   * server that only serves MCP never loads Koa and its dependencies (~10 MiB resident).
   */
  readonly app: Koa
  /**
   * A `node:http` request listener: MCP paths go straight to their transport (no Koa context
   * built per request: these are the hot paths), anything else to the Koa app.
   */
  handler: (req: IncomingMessage, res: ServerResponse) => void
  streamable: StreamableHttpHandler
  legacySse: LegacySseHandler
  statelessJson: StatelessJsonHandler
  close(): Promise<void>
}

/**
 * The Koa app that serves one McpServer on every HTTP transport: Streamable HTTP at `/mcp`, the
 * legacy 2024-11-05 HTTP+SSE pair at `/sse` + `/messages`, and stateless JSON at `/rest`.
 * The composition root for HTTP: transports are mounted here, nowhere else.
 */
export function createMcpHttpApp(server: SessionHost, options: McpHttpAppOptions): McpHttpApp {
  const allowedHosts = options.allowedHosts ?? (isLoopbackHost(options.host) ? [...LOOPBACK_HOSTS] : [options.host])
  const streamable = new StreamableHttpHandler(server, { ...options, allowedHosts })
  // one body limit for every transport of the app
  const policy = { allowedHosts, allowedOrigins: options.allowedOrigins, ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }) }
  const prefix = options.prefix ?? ''
  if (prefix !== '' && !/^\/[^/?#]+(?:\/[^/?#]+)*$/.test(prefix)) throw new TypeError(`prefix ${JSON.stringify(prefix)}: starts with / and does not end with one`)
  const legacySse = new LegacySseHandler(server, {
    ...policy,
    // the endpoint event names it: the client posts there
    messagesPath: `${prefix}${defaults.legacySse.messagesPath}`,
    ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
    ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
    ...(options.maxSessionsPerPrincipal === undefined ? {} : { maxSessionsPerPrincipal: options.maxSessionsPerPrincipal }),
  })
  const statelessJson = new StatelessJsonHandler(server, policy)
  const wrap = options.wrapRoute ?? ((route: McpRoute) => route)
  const path = options.path ?? defaults.streamableHttp.path
  const { ssePath, messagesPath } = defaults.legacySse
  const routes = new Map<string, McpRoute>([
    [`${prefix}${path}`, wrap((req, res, body) => streamable.handle(req, res, body), path)],
    [`${prefix}${ssePath}`, wrap((req, res) => legacySse.handleStream(req, res), ssePath)],
    [`${prefix}${messagesPath}`, wrap((req, res, body) => legacySse.handleMessage(req, res, body), messagesPath)],
    [`${prefix}${defaults.statelessJson.path}`, wrap((req, res, body) => statelessJson.handle(req, res, body), defaults.statelessJson.path)],
  ])
  const before = options.before
  let app: Koa | undefined
  const koaApp = (): Koa => {
    if (app !== undefined) return app
    const KoaApp = loadKoa()
    // the last X-Forwarded-For entry is the one the proxy wrote: one a client sent ahead of it counts for nothing
    app = new KoaApp({ proxy: options.trustProxy === true, maxIpsCount: 1 })
    app.use(async function mcpTransports(ctx, next) {
      if (before?.(ctx.req, ctx.res, ctx.path) === true) {
        ctx.respond = false
        return
      }
      const route = routes.get(ctx.path)
      if (route === undefined) return next()
      noteRoute(ctx.req, ctx.path)
      ctx.respond = false
      await route(ctx.req, ctx.res)
    })
    for (const middleware of options.middleware ?? []) app.use(middleware)
    // a client's mistake is one line, our bug a stack: never Koa's default (a stack on stderr for each)
    const log = options.observer?.log
    if (log !== undefined) app.on('error', (error: unknown, ctx?: Koa.Context) => logError(log, error, ctx?.req))
    return app
  }
  // Koa composes its middleware when callback() is called: anything used on `app` after the
  // first request `handler` passed to it is reached through the Koa app itself, not through `handler`.
  let koa: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/'
    const query = url.indexOf('?')
    const path = query === -1 ? url : url.slice(0, query)
    if (before?.(req, res, path) === true) return
    const route = routes.get(path)
    if (route === undefined) void (koa ??= koaApp().callback())(req, res)
    else {
      // the route's own path: a template as it is (`/mcp`, `/<name>/mcp`)
      noteRoute(req, path)
      void route(req, res)
    }
  }
  // middleware given up front: make the app now, so a broken one fails here and not on a request
  if (options.middleware !== undefined && options.middleware.length > 0) koaApp()
  return {
    get app() {
      return koaApp()
    },
    handler,
    streamable,
    legacySse,
    statelessJson,
    close: async () => {
      await Promise.all([streamable.close(), legacySse.close(), statelessJson.close()])
    },
  }
}

/** Koa, loaded on first use (a CommonJS package: `require` keeps `app` synchronous). */
function loadKoa(): typeof Koa {
  return createRequire(import.meta.url)('koa') as typeof Koa
}
