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
 * back to the 2024-11-05 HTTP+SSE transport on the same URL.
 *
 * @example
 * const { kind } = await connectHttp(client, 'http://127.0.0.1:3000/mcp')
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility
 */
export async function connectHttp(client: McpClient, url: URL | string, options: StreamableHttpClientOptions & SseClientOptions = {}): Promise<ConnectHttpResult> {
  const streamable = new StreamableHttpClientTransport(url, options)
  try {
    return { transport: streamable, kind: 'streamable-http', initialize: await client.connect(streamable) }
  } catch (error) {
    if (!(error instanceof HttpTransportError) || !isFallbackStatus(error.status)) throw error
    await client.close().catch(() => {})
  }
  const sse = new SseClientTransport(url, options)
  return { transport: sse, kind: 'sse', initialize: await client.connect(sse) }
}

function isFallbackStatus(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403
}
