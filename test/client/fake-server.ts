import { Endpoint } from '../../src/protocol/endpoint.js'
import type { Transport } from '../../src/protocol/transport.js'
import type { JsonRpcParams } from '../../src/jsonrpc/index.js'
import type { ServerCapabilities } from '../../src/schema/capabilities.js'
import { InMemoryTransport } from '../../src/transports/memory/in-memory-transport.js'

export interface FakeServerOptions {
  /** What initialize answers; by default the version the client asked for. */
  protocolVersion?: string
  capabilities?: ServerCapabilities
}

/**
 * A raw server built on our Endpoint, for what the SDK server will not do: paginate, repeat a
 * cursor, answer a foreign protocol version, break its own output schema, send bare requests.
 */
export function createFakeServer(options: FakeServerOptions = {}): {
  server: Endpoint
  clientTransport: Transport
  initializeParams: () => JsonRpcParams | undefined
  notifications: Array<{ method: string; params: JsonRpcParams }>
} {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  const server = new Endpoint()
  let initializeParams: JsonRpcParams | undefined
  const notifications: Array<{ method: string; params: JsonRpcParams }> = []
  server.setRequestHandler('initialize', (params) => {
    initializeParams = params
    return {
      protocolVersion: options.protocolVersion ?? params.protocolVersion,
      capabilities: options.capabilities ?? {},
      serverInfo: { name: 'fake-server', version: '0.0.1' },
    }
  })
  for (const method of ['notifications/initialized', 'notifications/roots/list_changed']) {
    server.setNotificationHandler(method, (params) => {
      notifications.push({ method, params })
    })
  }
  void server.connect(serverTransport)
  return { server, clientTransport, initializeParams: () => initializeParams, notifications }
}
