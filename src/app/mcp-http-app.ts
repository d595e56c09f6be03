import type { IncomingMessage, ServerResponse } from 'node:http'
import Koa from 'koa'
import { defaults } from '../config/defaults.js'
import type { McpServer } from '../server/mcp-server.js'
import { LOOPBACK_HOSTS, isLoopbackHost } from '../transports/http/origin-policy.js'
import { LegacySseHandler } from '../transports/sse-legacy/server/index.js'
import { StatelessJsonHandler } from '../transports/stateless-json/index.js'
import { StreamableHttpHandler, streamableHttpKoa, type StreamableHttpOptions } from '../transports/streamable-http/server/index.js'

export interface McpHttpAppOptions extends Partial<Omit<StreamableHttpOptions, 'allowedHosts'>> {
  /** The interface the app is bound to; decides the default Host/Origin allow-list. */
  host: string
  /** Hosts accepted in Host/Origin; default: the loopback names when bound to loopback, else `host`. */
  allowedHosts?: readonly string[]
  path?: string
}

export interface McpHttpApp {
  /** The Koa app: every transport mounted as middleware, plus whatever the caller adds. */
  app: Koa
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
export function createMcpHttpApp(server: McpServer, options: McpHttpAppOptions): McpHttpApp {
  const allowedHosts = options.allowedHosts ?? (isLoopbackHost(options.host) ? [...LOOPBACK_HOSTS] : [options.host])
  const streamable = new StreamableHttpHandler(server, { ...options, allowedHosts })
  const policy = { allowedHosts, allowedOrigins: options.allowedOrigins }
  const legacySse = new LegacySseHandler(server, { ...policy, messagesPath: defaults.legacySse.messagesPath })
  const statelessJson = new StatelessJsonHandler(server, policy)
  const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => Promise<void>>([
    [options.path ?? defaults.streamableHttp.path, (req, res) => streamable.handle(req, res)],
    [defaults.legacySse.ssePath, (req, res) => legacySse.handleStream(req, res)],
    [defaults.legacySse.messagesPath, (req, res) => legacySse.handleMessage(req, res)],
    [defaults.statelessJson.path, (req, res) => statelessJson.handle(req, res)],
  ])
  const app = new Koa()
  app.use(streamableHttpKoa(streamable, { path: options.path ?? defaults.streamableHttp.path }))
  app.use(async function otherTransports(ctx, next) {
    const route = routes.get(ctx.path)
    if (route === undefined) return next()
    ctx.respond = false
    await route(ctx.req, ctx.res)
  })
  const koa = app.callback()
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/'
    const query = url.indexOf('?')
    const route = routes.get(query === -1 ? url : url.slice(0, query))
    if (route === undefined) void koa(req, res)
    else void route(req, res)
  }
  return {
    app,
    handler,
    streamable,
    legacySse,
    statelessJson,
    close: async () => {
      await Promise.all([streamable.close(), legacySse.close()])
    },
  }
}
