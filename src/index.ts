/**
 * mcp-auth: the public API. Every name exported here is supported; anything else is internal
 * and may change. Subpath entry points (`mcp-auth/server`, `mcp-auth/client`, `mcp-auth/http`,
 * `mcp-auth/transports/stdio`, `mcp-auth/transports/memory`) export subsets of this list.
 */

// JSON-RPC envelope
export { ErrorCode, JsonRpcError, JSONRPC_VERSION } from './jsonrpc/index.js'
export type {
  RequestId,
  JsonRpcMessage,
  JsonRpcPayload,
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResponse,
  JsonRpcErrorObject,
} from './jsonrpc/index.js'

// protocol engine
export { Endpoint, LocalError } from './protocol/index.js'
export type { EndpointOptions, LocalErrorCode, Transport, MessageExtra, SendOptions, RequestContext, AuthInfo, RequestOptions } from './protocol/index.js'

// MCP schema
export { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './schema/versions.js'
export type { ProtocolVersion } from './schema/versions.js'
export type { ClientCapabilities, ServerCapabilities, Implementation, InitializeResult } from './schema/capabilities.js'
export type {
  Annotations,
  TextContent,
  ImageContent,
  AudioContent,
  TextResourceContents,
  BlobResourceContents,
  ResourceContents,
  EmbeddedResource,
  ResourceLink,
  ContentBlock,
} from './schema/content.js'
export type {
  PaginatedParams,
  PaginatedResult,
  JsonSchemaObject,
  ToolAnnotations,
  Tool,
  CallToolParams,
  CallToolResult,
  Resource,
  ResourceTemplate,
  ReadResourceResult,
  PromptArgument,
  Prompt,
  PromptMessage,
  GetPromptResult,
  CompletionReference,
  CompleteParams,
  CompleteResult,
  LoggingLevel,
  LoggingMessageParams,
  SamplingMessage,
  ModelPreferences,
  CreateMessageParams,
  CreateMessageResult,
  ElicitFormParams,
  ElicitUrlParams,
  ElicitParams,
  ElicitResult,
  Root,
  ListRootsResult,
  ProgressToken,
  ProgressParams,
  CancelledParams,
} from './schema/features.js'
export { LOGGING_LEVELS } from './schema/features.js'

// server
export { McpServer, ServerSession } from './server/index.js'
export type {
  McpServerOptions,
  ServerContext,
  ToolDefinition,
  ToolHandler,
  RegisteredTool,
  SdkToolConfig,
  SdkToolHandler,
  SdkToolArgs,
  SdkSchema,
  ReadResource,
  ReadTemplatedResource,
  TemplateCallbacks,
  Completer,
  Removable,
  GetPrompt,
} from './server/index.js'

// client
export { McpClient } from './client/index.js'
export type { McpClientOptions, ConnectOptions, McpClientEvents, SamplingHandler, ElicitationHandler } from './client/index.js'

// transports
export { InMemoryTransport } from './transports/memory/index.js'
export { StdioServerTransport, StdioClientTransport, StdioError } from './transports/stdio/index.js'
export type { StdioServerTransportOptions, StdioClientTransportOptions, ChildExitStatus, StdioErrorCode } from './transports/stdio/index.js'

// HTTP (also available alone as mcp-auth/http)
export {
  createMcpHttpApp,
  StreamableHttpHandler,
  streamableHttpKoa,
  InMemoryEventStore,
  InMemorySessionStore,
  RedisSessionStore,
  RedisEventStore,
  redisMcpOptions,
  RedisConnection,
  InProcessMessageBus,
  StorageUnavailableError,
  LegacySseHandler,
  StatelessJsonHandler,
  connectHttp,
  StreamableHttpClientTransport,
  SseClientTransport,
  HttpTransportError,
} from './http.js'
export type {
  McpHttpApp,
  McpHttpAppOptions,
  StreamableHttpOptions,
  EventStore,
  StoredEvents,
  SessionStore,
  SessionState,
  AdmitVerdict,
  SharedSessionLimits,
  RedisSessionStoreOptions,
  RedisEventStoreOptions,
  RedisMcpOptions,
  RedisConnectionOptions,
  MessageBus,
  LegacySseOptions,
  StatelessJsonOptions,
  ConnectHttpResult,
  StreamableHttpClientOptions,
  SseClientOptions,
  HttpTransportErrorCode,
} from './http.js'

// demo
export { createDemoServer } from './demo/demo-server.js'

// The authorization server lives at its own entry point, `mcp-auth/auth-server` (see
// src/auth-server.ts): it loads oidc-provider, which MCP-only users should not pay for.
