import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createGatewayJob, type GatewayJob, type GatewayJobOptions } from '../../src/app/gateway-job.js'
import { McpClient } from '../../src/client/index.js'
import { StreamableHttpClientTransport } from '../../src/transports/http-client/index.js'
import { TEST_SERVER } from './paths.js'

export interface GatewayStack {
  origin: string
  resource: string
  job: GatewayJob
  /** What the gateway logged (children's stderr, refusals), a line each. */
  log: string[]
  /** An access token for `/mcp` of a client_credentials client named `client` (one client per name). */
  token(client?: string): Promise<string>
  /** Our MCP client on a stateful Streamable HTTP session (2025-11-25) with `token`. */
  connect(token: string, setup?: (client: McpClient) => void): Promise<McpClient>
  /** POST one JSON-RPC request to `/mcp` (or `path`) with `token`; the answer's status, headers and JSON-RPC message. */
  post(token: string, body: unknown, headers?: Record<string, string>, path?: string): Promise<{ status: number; headers: Headers; message: Record<string, unknown> }>
  stop(): Promise<void>
}

/**
 * `mcp-auth gateway` in-process on an ephemeral 127.0.0.1 port: our authorization server (rate
 * limits off) and the gateway in front of `child` (default: the test server of
 * test/fixtures/gateway/ with `ok`).
 */
export async function startGatewayStack(options: Partial<GatewayJobOptions> = {}): Promise<GatewayStack> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-gateway-'))
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined
  const server: Server = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const log: string[] = []
  const job = await createGatewayJob({
    origin,
    dataDir,
    child: { command: process.execPath, args: [TEST_SERVER, 'ok'] },
    config: { rateLimits: false },
    log: (line) => log.push(line),
    ...options,
  })
  handler = job.handler
  const clients = new Map<string, { id: string; secret: string }>()
  const resource = `${origin}/mcp`
  const stack: GatewayStack = {
    origin,
    resource,
    job,
    log,
    async token(name = 'client-a') {
      let client = clients.get(name)
      if (client === undefined) {
        const added = await job.as!.addClient({
          client_name: name,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_basic',
        })
        client = { id: added.client_id, secret: added.client_secret! }
        clients.set(name, client)
      }
      const response = await fetch(`${origin}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource }),
      })
      const body = (await response.json()) as { access_token?: string }
      if (body.access_token === undefined) throw new Error(`no token: ${JSON.stringify(body)}`)
      return body.access_token
    },
    async connect(token, setup) {
      const client = new McpClient(
        { name: 'gateway-test', version: '1' },
        { protocolVersion: '2025-11-25', supportedProtocolVersions: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] },
      )
      setup?.(client)
      await client.connect(new StreamableHttpClientTransport(new URL(resource), { headers: { authorization: `Bearer ${token}` } }))
      return client
    },
    async post(token, body, headers = {}, path = '/mcp') {
      const response = await fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      })
      return { status: response.status, headers: response.headers, message: await answerOf(response) }
    },
    async stop() {
      await job.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await rm(dataDir, { recursive: true, force: true })
    },
  }
  return stack
}

/** A 2026-07-28 request's body and headers (no session, `_meta` on the request). */
export function statelessRequest(id: number, method: string, params: Record<string, unknown> = {}): { body: unknown; headers: Record<string, string> } {
  const name = typeof params.name === 'string' ? params.name : undefined
  return {
    body: {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: { ...(params._meta as object | undefined), 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    },
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name !== undefined ? { 'mcp-name': name } : {}) },
  }
}

/** The JSON-RPC message of an answer to one request, sent as JSON or as an SSE stream ({} when none). */
export async function answerOf(response: Response): Promise<Record<string, any>> {
  const text = await response.text()
  if (response.headers.get('content-type')?.startsWith('application/json')) return JSON.parse(text) as Record<string, any>
  const data = text.split('\n').find((line) => line.startsWith('data: {'))
  return JSON.parse(data === undefined ? '{}' : data.slice('data: '.length)) as Record<string, any>
}
