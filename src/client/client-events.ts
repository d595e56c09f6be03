import type { JsonRpcParams } from '../jsonrpc/index.js'
import type { Endpoint } from '../protocol/endpoint.js'
import type { LoggingMessageParams } from '../schema/features.js'

/**
 * Events of an McpClient (node:events). `notification` carries every server notification
 * (progress and cancelled excepted: they settle requests); the others are typed shortcuts for the common ones.
 *
 * @example
 * client.on('logging', ({ level, logger, data }) => console.error(level, logger, data))
 * client.on('resourceUpdated', ({ uri }) => void client.readResource(uri))
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging
 */
export interface McpClientEvents {
  notification: [method: string, params: JsonRpcParams]
  /** notifications/message */
  logging: [params: LoggingMessageParams]
  /** notifications/resources/updated */
  resourceUpdated: [params: { uri: string; [key: string]: unknown }]
  toolsListChanged: []
  resourcesListChanged: []
  promptsListChanged: []
  /** Something the client dropped or worked around (a tool with invalid `x-mcp-header` annotations). */
  warning: [message: string]
  /** Emitted only while someone listens; otherwise errors go to `onerror`. */
  error: [error: Error]
  close: []
}

type Emit = <K extends keyof McpClientEvents>(event: K, ...args: McpClientEvents[K]) => void

/**
 * Server → client notifications defined by the spec. notifications/progress and
 * notifications/cancelled stay with the endpoint (they settle requests, not listeners).
 */
const SERVER_NOTIFICATIONS = [
  'notifications/message',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/elicitation/complete',
  'notifications/tasks/status',
] as const

/**
 * Register a handler per server notification that emits `notification` and its typed event;
 * notifications the spec does not define (extensions, custom ones) still reach `notification`.
 */
export function routeServerNotifications(endpoint: Endpoint, emit: Emit, onToolsChanged: () => void): void {
  endpoint.fallbackNotificationHandler = (method, params) => emit('notification', method, params)
  for (const method of SERVER_NOTIFICATIONS) {
    endpoint.setNotificationHandler(method, (params) => {
      emit('notification', method, params)
      switch (method) {
        case 'notifications/message':
          emit('logging', params as unknown as LoggingMessageParams)
          break
        case 'notifications/resources/updated':
          if (typeof params.uri === 'string') emit('resourceUpdated', params as { uri: string })
          break
        case 'notifications/resources/list_changed':
          emit('resourcesListChanged')
          break
        case 'notifications/tools/list_changed':
          onToolsChanged()
          emit('toolsListChanged')
          break
        case 'notifications/prompts/list_changed':
          emit('promptsListChanged')
          break
      }
    })
  }
}
