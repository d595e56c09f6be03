import { CLIENT_OPTIONS, CLIENT_USAGE, cliClientAuth, serverUrl } from '../client-auth.js'
import type { Command } from '../command.js'
import { ErrorCode } from '../../jsonrpc/index.js'
import { StdioServerTransport } from '../../transports/stdio/index.js'
import { StreamableHttpClientTransport } from '../../transports/http-client/index.js'
import { paramHeaders } from '../../schema/x-mcp-header.js'

export const proxyCommand: Command = {
  name: 'proxy',
  summary: 'bridge stdio to a protected Streamable HTTP MCP server, with login',
  usage: `
Usage: mcp-auth proxy <url> [login options]

Speaks MCP on stdin/stdout and forwards every message to the server over Streamable HTTP with a
bearer token (logging in through the browser when needed), so a stdio-only MCP host can use a
protected remote server. Both eras pass through: a handshake-era host gets a session, a
2026-07-28 host's requests go out one by one with the headers that revision asks for. Logs go to
stderr.
${CLIENT_USAGE}  -h, --help   show this help
`,
  options: { ...CLIENT_OPTIONS },
  allowPositionals: true,
  async run(values, positionals) {
    const url = serverUrl(positionals[0])
    const remote = new StreamableHttpClientTransport(url, { fetch: cliClientAuth(url, values).fetch })
    const local = new StdioServerTransport()
    const initializeIds = new Set<unknown>()
    const toolListIds = new Set<unknown>()
    // input schemas of the tools the host listed, for the Mcp-Param-* headers of its tool calls (2026-07-28)
    const inputSchemas = new Map<string, object>()
    // A host may write `initialize` and its next messages at once (issue 28): what follows an
    // initialize waits for its answer (the session id, the negotiated version), then goes out in
    // the order it came. Without an initialize (2026-07-28) nothing waits.
    let handshake: Promise<void> = Promise.resolve()
    const answered = new Map<unknown, () => void>()
    local.onmessage = (payload) => {
      let headers: Record<string, string> | undefined
      const before = handshake
      for (const message of Array.isArray(payload) ? payload : [payload]) {
        const { id, method, params } = message as { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } }
        if (method === 'initialize') {
          initializeIds.add(id)
          const done = new Promise<void>((resolve) => answered.set(id, resolve))
          handshake = handshake.then(() => done)
        }
        if (method === 'tools/list') toolListIds.add(id)
        const schema = method === 'tools/call' && typeof params?.name === 'string' ? inputSchemas.get(params.name) : undefined
        if (schema !== undefined) headers = paramHeaders(schema, params?.arguments)
      }
      void before.then(() => forward(payload, headers))
    }
    const forward = (payload: unknown, headers: Record<string, string> | undefined): void => {
      remote.send(payload as never, headers === undefined ? {} : { headers }).catch((error: Error) => {
        for (const message of Array.isArray(payload) ? payload : [payload]) {
          const { id, method } = message as { id?: unknown; method?: unknown }
          if (method === 'initialize') answered.get(id)?.()
        }
        process.stderr.write(`mcp-auth proxy: ${error.message}\n`)
        // the host gets an answer instead of waiting for its timeout
        for (const message of Array.isArray(payload) ? payload : [payload]) {
          const { id, method } = message as { id?: unknown; method?: unknown }
          if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) {
            local.send({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: `mcp-auth proxy: ${error.message}` } }).catch(() => undefined)
          }
        }
      })
    }
    remote.onmessage = (payload) => {
      for (const message of Array.isArray(payload) ? payload : [payload]) {
        const { id, result } = message as { id?: unknown; result?: { protocolVersion?: unknown; tools?: unknown } }
        // The negotiated version travels on every later request (MCP-Protocol-Version).
        if (initializeIds.delete(id) && typeof result?.protocolVersion === 'string') remote.setProtocolVersion(result.protocolVersion)
        answered.get(id)?.()
        answered.delete(id)
        if (toolListIds.delete(id) && Array.isArray(result?.tools)) {
          for (const tool of result.tools as Array<{ name?: unknown; inputSchema?: unknown }>) {
            if (typeof tool?.name === 'string' && typeof tool.inputSchema === 'object' && tool.inputSchema !== null) inputSchemas.set(tool.name, tool.inputSchema)
          }
        }
      }
      local.send(payload as never).catch(() => undefined)
    }
    remote.onerror = (error) => process.stderr.write(`mcp-auth proxy: ${error.message}\n`)
    local.onerror = (error) => process.stderr.write(`mcp-auth proxy: ${error.message}\n`)
    const closed = new Promise<void>((resolve) => {
      local.onclose = () => resolve()
    })
    await remote.start()
    await local.start()
    await closed
    await remote.close()
    return 0
  },
}
