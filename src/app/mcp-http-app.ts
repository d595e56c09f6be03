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
  app: Koa
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
  const app = new Koa()
  app.use(streamableHttpKoa(streamable, { path: options.path ?? defaults.streamableHttp.path }))
  app.use(async function otherTransports(ctx, next) {
    const route =
      ctx.path === defaults.legacySse.ssePath
        ? () => legacySse.handleStream(ctx.req, ctx.res)
        : ctx.path === defaults.legacySse.messagesPath
          ? () => legacySse.handleMessage(ctx.req, ctx.res)
          : ctx.path === defaults.statelessJson.path
            ? () => statelessJson.handle(ctx.req, ctx.res)
            : undefined
    if (route === undefined) return next()
    ctx.respond = false
    await route()
  })
  return {
    app,
    streamable,
    legacySse,
    statelessJson,
    close: async () => {
      await Promise.all([streamable.close(), legacySse.close()])
    },
  }
}
