import type { ConnectOptions } from '../../client/client-options.js'
import type { McpClient } from '../../client/mcp-client.js'
import type { InitializeResult } from '../../schema/capabilities.js'
import { HttpTransportError } from '../http/http-transport-error.js'
import { SseClientTransport, type SseClientOptions } from '../sse-legacy/client/sse-client-transport.js'
import { StreamableHttpClientTransport, type StreamableHttpClientOptions } from '../streamable-http/client/streamable-http-client-transport.js'

export interface ConnectHttpResult {
  transport: StreamableHttpClientTransport | SseClientTransport
  kind: 'streamable-http' | 'sse'
  initialize: InitializeResult
}

/**
 * Connect a client to an MCP server given one URL: Streamable HTTP first (POST initialize); when
 * that initialize is answered with a 4xx other than 401/403 (those are for an auth layer), fall
 * back to the 2024-11-05 HTTP+SSE transport on the same URL. `signal` gives up on either handshake.
 *
 * @example
 * const { kind } = await connectHttp(client, 'http://127.0.0.1:3000/mcp')
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility
 */
export async function connectHttp(client: McpClient, url: URL | string, options: StreamableHttpClientOptions & SseClientOptions & ConnectOptions = {}): Promise<ConnectHttpResult> {
  const { signal, ...transportOptions } = options
  const connect: ConnectOptions = signal === undefined ? {} : { signal }
  const streamable = new StreamableHttpClientTransport(url, transportOptions)
  try {
    return { transport: streamable, kind: 'streamable-http', initialize: await client.connect(streamable, connect) }
  } catch (error) {
    if (!(error instanceof HttpTransportError) || !isFallbackStatus(error.status)) throw error
    await client.close().catch(() => {})
  }
  const sse = new SseClientTransport(url, transportOptions)
  return { transport: sse, kind: 'sse', initialize: await client.connect(sse, connect) }
}

function isFallbackStatus(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403
}
