import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { z } from 'zod'

export function sdkServer(): McpServer {
  const server = new McpServer({ name: 'sdk-peer', version: '1.0.0' })
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }))
  server.registerTool('count', { inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    for (let i = 1; i <= steps; i++) {
      const token = extra._meta?.progressToken
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } })
    }
    return { content: [{ type: 'text', text: `counted ${steps}` }] }
  })
  return server
}

export interface Peer {
  url: string
  seen: Array<{ method: string; headers: IncomingHttpHeaders; body: unknown }>
  sessions: Map<string, StreamableHTTPServerTransport>
  close(): Promise<void>
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; base: string }> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** The official SDK's Streamable HTTP server, stateful (sessions) or stateless, SSE or JSON answers. */
export async function sdkStreamablePeer(options: { stateless?: boolean; json?: boolean } = {}): Promise<Peer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const seen: Peer['seen'] = []
  const { server, base } = await listen(async (req, res) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined
    seen.push({ method: req.method!, headers: req.headers, body })
    if (options.stateless) {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: options.json ?? false })
      await sdkServer().connect(transport)
      await transport.handleRequest(req, res, body)
      return
    }
    const id = req.headers['mcp-session-id'] as string | undefined
    let transport = id === undefined ? undefined : sessions.get(id)
    if (transport === undefined && req.method === 'POST' && isInitializeRequest(body)) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        enableJsonResponse: options.json ?? false,
        onsessioninitialized: (sid) => void sessions.set(sid, created),
      })
      transport = created
      await sdkServer().connect(created)
    }
    if (transport === undefined) {
      res.writeHead(id === undefined ? 400 : 404).end()
      return
    }
    await transport.handleRequest(req, res, body)
  })
  return { url: `${base}/mcp`, seen, sessions, close: () => closeServer(server) }
}

/** The official SDK's legacy HTTP+SSE server: GET <path> streams, POST <path>?sessionId= delivers; POST on the stream URL gets 405. */
export async function sdkLegacyPeer(): Promise<{ url: string; close(): Promise<void> }> {
  const transports = new Map<string, SSEServerTransport>()
  const { server, base } = await listen(async (req, res) => {
    const url = new URL(req.url!, 'http://localhost')
    if (req.method === 'GET' && url.pathname === '/mcp') {
      const transport = new SSEServerTransport('/messages', res)
      transports.set(transport.sessionId, transport)
      await sdkServer().connect(transport)
      return
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId') ?? '')
      if (transport === undefined) return void res.writeHead(404).end()
      await transport.handlePostMessage(req, res, await readBody(req))
      return
    }
    res.writeHead(405, { Allow: 'GET' }).end()
  })
  return { url: `${base}/mcp`, close: () => closeServer(server) }
}

export async function rawServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const { server, base } = await listen(handler)
  return { url: `${base}/mcp`, close: () => closeServer(server) }
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections()
  return new Promise((resolve) => server.close(() => resolve()))
}
