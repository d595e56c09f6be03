// Your own MCP server, protected by the authorization server of `npm start` (docs/protecting-mcp-servers.md).
// Run it with: node examples/protected-server.mjs   (PORT and ISSUER change where it listens and whom it trusts)
import { createServer } from 'node:http'
import { McpServer } from 'mcp-auth'
import { createProtectedMcpApp } from 'mcp-auth/http'

const port = Number(process.env.PORT ?? 4160)
const origin = `http://localhost:${port}` // the resource is ${origin}/mcp: add exactly this URL to the authorization server
const issuer = process.env.ISSUER ?? 'http://localhost:4000'

const server = new McpServer({ name: 'my-server', version: '1.0.0' })
server.registerTool(
  { name: 'add', description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
)

// Bearer tokens from `issuer` for this resource, with the `mcp` scope, on /mcp (and /sse, /rest)
const app = createProtectedMcpApp(server, { origin, issuer, host: '127.0.0.1', requiredScopes: ['mcp'] })
createServer(app.handler).listen(port, '127.0.0.1', () => console.log(`listening on ${origin}/mcp`))
