import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/paths.js'

const run = promisify(execFile)

// In a process of its own (the test runner has Koa loaded already): an MCP server on the built
// package that serves /mcp, then a path that is not an MCP route. Prints what it saw as JSON.
const SCRIPT = `
import { createRequire } from 'node:module'
import { createServer } from 'node:http'
import { createMcpHttpApp } from './dist/app/mcp-http-app.js'
import { createDemoServer } from './dist/demo/demo-server.js'
const require = createRequire(import.meta.url)
const koaLoaded = () => Object.keys(require.cache).some((path) => /node_modules[\\\\/]koa[\\\\/]/.test(path))
const app = createMcpHttpApp(createDemoServer(), { host: '127.0.0.1' })
const server = createServer(app.handler)
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const origin = 'http://127.0.0.1:' + server.address().port
const mcp = await fetch(origin + '/mcp', {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
})
await mcp.text()
const afterMcp = koaLoaded()
const other = await fetch(origin + '/not-mcp')
await other.text()
console.log(JSON.stringify({ mcpStatus: mcp.status, afterMcp, otherStatus: other.status, afterOther: koaLoaded() }))
await app.close()
server.close()
`

describe('createMcpHttpApp', () => {
  it('serves MCP without loading Koa, and loads it for the first path that is not an MCP route', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: REPO_ROOT, timeout: 15_000 })
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ mcpStatus: 200, afterMcp: false, otherStatus: 404, afterOther: true })
  })
})
