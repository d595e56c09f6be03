/**
 * mcp-auth/http: MCP over HTTP. Server side: Streamable HTTP (framework-neutral handler plus a
 * Koa adapter), the legacy 2024-11-05 HTTP+SSE pair, the stateless JSON endpoint, and an app that
 * mounts all three, also behind bearer tokens (`createProtectedMcpApp`). Client side: Streamable HTTP and legacy SSE transports, and a connect helper
 * that falls back from one to the other.
 */
export { createMcpHttpApp, type McpHttpApp, type McpHttpAppOptions } from './app/mcp-http-app.js'
// several processes on one Redis: the connection (ioredis loads with the first one) and the bus
export { RedisConnection, type RedisConnectionOptions, InProcessMessageBus, type MessageBus, StorageUnavailableError } from './storage/index.js'
export { createProtectedMcpApp, type ProtectedMcpApp, type ProtectedMcpAppOptions } from './app/protected-mcp-app.js'
// the gateway's session host: serve any stdio MCP server's sessions from child processes (docs/gateway.md)
export { GatewayHost, type GatewayHostOptions } from './gateway/gateway-host.js'
export { stdioChildren, type StdioChildrenOptions } from './gateway/stdio-children.js'
export type { ChildFactory } from './gateway/child-factory.js'
export type { AccountValues } from './gateway/account-values.js'
export type { SessionHost, HostedSession } from './session-host/session-host.js'
// moved to mcp-auth/resource (issue 28): still exported here so existing imports keep working
export { protectMcpHandler } from './auth/resource/protect-mcp-handler.js'
export {
  StreamableHttpHandler,
  streamableHttpKoa,
  InMemoryEventStore,
  InMemorySessionStore,
  type StreamableHttpOptions,
  type EventStore,
  type StoredEvents,
  type SessionStore,
  type SessionState,
  type AdmitVerdict,
  type SharedSessionLimits,
} from './transports/streamable-http/server/index.js'
export { RedisSessionStore, type RedisSessionStoreOptions } from './redis/session-store.js'
export { RedisEventStore, type RedisEventStoreOptions } from './redis/event-store.js'
export { redisMcpOptions, type RedisMcpOptions } from './redis/mcp-options.js'
export { LegacySseHandler, type LegacySseOptions } from './transports/sse-legacy/server/index.js'
export { StatelessJsonHandler, type StatelessJsonOptions } from './transports/stateless-json/index.js'
export {
  connectHttp,
  StreamableHttpClientTransport,
  SseClientTransport,
  HttpTransportError,
  type ConnectHttpResult,
  type StreamableHttpClientOptions,
  type SseClientOptions,
  type HttpTransportErrorCode,
} from './transports/http-client/index.js'
