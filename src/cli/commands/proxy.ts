import { CLIENT_OPTIONS, CLIENT_USAGE, cliAuth, serverUrl } from '../client-auth.js'
import type { Command } from '../command.js'
import { StdioServerTransport } from '../../transports/stdio/index.js'
import { StreamableHttpClientTransport } from '../../transports/http-client/index.js'

export const proxyCommand: Command = {
  name: 'proxy',
  summary: 'bridge stdio to a protected Streamable HTTP MCP server, with login',
  usage: `
Usage: mcp-auth proxy <url> [login options]

Speaks MCP on stdin/stdout and forwards every message to the server over Streamable HTTP with a
bearer token (logging in through the browser when needed), so a stdio-only MCP host can use a
protected remote server. Logs go to stderr.
${CLIENT_USAGE}  -h, --help   show this help
`,
  options: { ...CLIENT_OPTIONS },
  allowPositionals: true,
  async run(values, positionals) {
    const url = serverUrl(positionals[0])
    const remote = new StreamableHttpClientTransport(url, { fetch: cliAuth(url, values).fetch })
    const local = new StdioServerTransport()
    const initializeIds = new Set<unknown>()
    local.onmessage = (payload) => {
      for (const message of Array.isArray(payload) ? payload : [payload]) {
        if ((message as { method?: unknown }).method === 'initialize') initializeIds.add((message as { id?: unknown }).id)
      }
      remote.send(payload as never).catch((error: Error) => process.stderr.write(`mcp-auth proxy: ${error.message}\n`))
    }
    remote.onmessage = (payload) => {
      for (const message of Array.isArray(payload) ? payload : [payload]) {
        const { id, result } = message as { id?: unknown; result?: { protocolVersion?: unknown } }
        // The negotiated version travels on every later request (MCP-Protocol-Version).
        if (initializeIds.delete(id) && typeof result?.protocolVersion === 'string') remote.setProtocolVersion(result.protocolVersion)
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
