import { Endpoint } from '../../src/protocol/endpoint.js'
import type { McpServer } from '../../src/server/mcp-server.js'
import type { ServerSession } from '../../src/server/server-session.js'
import { InMemoryTransport } from '../../src/transports/memory/in-memory-transport.js'

export interface Harness {
  peer: Endpoint
  session: ServerSession
  notifications: Array<{ method: string; params: Record<string, unknown> }>
  serverSide: InMemoryTransport
  clientSide: InMemoryTransport
}

const NOTIFICATIONS = [
  'notifications/message',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/progress',
]

/**
 * Connect a raw JSON-RPC endpoint (standing in for a client) to `server` over the in-memory
 * pair, and initialize with `protocolVersion` unless `initialize` is false.
 */
export async function connectRawClient(
  server: McpServer,
  options: { protocolVersion?: string; capabilities?: Record<string, unknown>; initialize?: boolean } = {},
): Promise<Harness> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const session = await server.connect(serverSide)
  const peer = new Endpoint({ acceptsBatch: () => true })
  const notifications: Harness['notifications'] = []
  for (const method of NOTIFICATIONS) {
    if (method === 'notifications/progress') continue // the endpoint routes progress to callers
    peer.setNotificationHandler(method, (params) => {
      notifications.push({ method, params })
    })
  }
  await peer.connect(clientSide)
  if (options.initialize !== false) {
    await peer.request('initialize', {
      protocolVersion: options.protocolVersion ?? '2025-11-25',
      capabilities: options.capabilities ?? {},
      clientInfo: { name: 'raw-test-client', version: '0.0.0' },
    })
    await peer.notify('notifications/initialized')
    await flush()
  }
  return { peer, session, notifications, serverSide, clientSide }
}

/** Let queued in-memory deliveries run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5))
}
