import Koa from 'koa'
import { defaults } from '../config/defaults.js'
import type { McpServer } from '../server/mcp-server.js'
import { LOOPBACK_HOSTS, isLoopbackHost } from '../transports/http/origin-policy.js'
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
  close(): Promise<void>
}

/**
 * The Koa app that serves one McpServer over HTTP: Streamable HTTP at `/mcp`.
 * The composition root for HTTP: transports are mounted here, nowhere else.
 */
export function createMcpHttpApp(server: McpServer, options: McpHttpAppOptions): McpHttpApp {
  const allowedHosts = options.allowedHosts ?? (isLoopbackHost(options.host) ? [...LOOPBACK_HOSTS] : [options.host])
  const streamable = new StreamableHttpHandler(server, { ...options, allowedHosts })
  const app = new Koa()
  app.use(streamableHttpKoa(streamable, { path: options.path ?? defaults.streamableHttp.path }))
  return {
    app,
    streamable,
    close: () => streamable.close(),
  }
}
