import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpClient } from '../../src/client/mcp-client.js'
import type { McpClientOptions } from '../../src/client/client-options.js'
import type { Transport } from '../../src/protocol/transport.js'

/**
 * Connect an McpClient to the official SDK's McpServer over the SDK's linked in-memory pair.
 * The SDK transport has the same start/send/close/onmessage shape as ours; only its message
 * types are narrower, hence the cast.
 */
export async function connectToSdkServer(
  server: McpServer,
  options: McpClientOptions = {},
  prepare?: (client: McpClient) => void | Promise<void>,
): Promise<{ client: McpClient; clientTransport: Transport }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new McpClient({ name: 'test-client', version: '1.0.0' }, options)
  await prepare?.(client)
  const clientTransport = clientSide as unknown as Transport
  await client.connect(clientTransport)
  return { client, clientTransport }
}
