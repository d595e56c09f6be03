import type { IncomingMessage, ServerResponse } from 'node:http'
import { defaults } from '../../config/defaults.js'
import type { McpServer } from '../../server/mcp-server.js'
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION } from '../../schema/versions.js'
import { acceptRequirement, header, readProtocolVersionHeader, requireAccept, requireJsonContentType } from '../http/header-checks.js'
import { HttpError } from '../http/http-error.js'
import { classifyBody, refuseBatchUnlessAllowed, requestExtra } from '../http/json-rpc-body.js'
import { OriginPolicy } from '../http/origin-policy.js'
import { endSoon } from '../http/end-soon.js'
import { readJsonBody } from '../http/read-json-body.js'
import { sendHttpError } from '../http/send-http-error.js'
import { JsonExchangeTransport } from './json-exchange-transport.js'

const ACCEPT_JSON = acceptRequirement(['application/json'])

export interface StatelessJsonOptions {
  allowedHosts: readonly string[]
  allowedOrigins?: readonly string[] | undefined
  maxBodyBytes?: number
}

/**
 * A stateless JSON-only MCP endpoint: POST only, application/json in and out, no sessions, no
 * SSE. Each POST is served by a light session of the one McpServer; requests need no prior
 * initialize, the protocol version comes from MCP-Protocol-Version (2025-03-26 when absent).
 * Server → client requests cannot travel here, so tools that sample or elicit report an error.
 *
 * @example
 * const rest = new StatelessJsonHandler(server, { allowedHosts: ['localhost', '127.0.0.1'] })
 * http.createServer((req, res) => rest.handle(req, res))
 */
export class StatelessJsonHandler {
  readonly #server: McpServer
  readonly #policy: OriginPolicy
  readonly #maxBodyBytes: number

  constructor(server: McpServer, options: StatelessJsonOptions) {
    this.#server = server
    this.#policy = new OriginPolicy(options)
    this.#maxBodyBytes = options.maxBodyBytes ?? defaults.streamableHttp.maxBodyBytes
  }

  async handle(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    try {
      this.#policy.check(header(req.headers, 'host'), header(req.headers, 'origin'))
      if (req.method !== 'POST') throw new HttpError(405, 'Method Not Allowed: this endpoint takes POST only', { headers: { Allow: 'POST' } })
      requireAccept(req.headers, ACCEPT_JSON)
      requireJsonContentType(req.headers)
      const protocolVersion = readProtocolVersionHeader(req.headers) ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION
      const body = parsedBody === undefined ? await readJsonBody(req, this.#maxBodyBytes) : parsedBody
      const { batch, requestIds: owed } = classifyBody(body)
      refuseBatchUnlessAllowed(batch, protocolVersion)

      const session = this.#server.createSession({ strictLifecycle: false })
      session.restore({ protocolVersion })
      const transport = new JsonExchangeTransport(res, owed, batch)
      await session.connect(transport)
      const extra = requestExtra(req)
      if (owed.length === 0) {
        endSoon(res.writeHead(202))
        session.receive(body, extra)
        void session.close()
        return
      }
      transport.onanswered = () => void session.close()
      res.once('close', () => void session.close())
      session.receive(body, extra)
    } catch (error) {
      sendHttpError(res, error)
    }
  }
}
