/**
 * The CLI's client commands on each HTTP transport a server may offer at the URL it is given:
 * Streamable HTTP (`/mcp`), the 2024-11-05 HTTP+SSE pair (`/sse`, found by the fallback the
 * transports spec describes: a POST refused with a 4xx other than 401/403) and stateless JSON
 * (`/rest`). Before, `tools` and `call` spoke Streamable HTTP only and failed on `/sse`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpHttpApp } from '../../src/app/mcp-http-app.js'
import { createDemoServer } from '../../src/demo/demo-server.js'
import { runCli } from '../helpers/cli-process.js'
import { listenOnLoopback } from '../helpers/listen.js'

let origin: string
let dir: string
let close: () => Promise<void>

beforeAll(async () => {
  const server = createDemoServer()
  const app = createMcpHttpApp(server, { host: '127.0.0.1' })
  const listening = await listenOnLoopback(app.handler)
  origin = listening.url
  close = async () => {
    await app.close()
    await listening.close()
    await server.close()
  }
  dir = mkdtempSync(join(tmpdir(), 'mcp-auth-cli-transports-'))
})
afterAll(async () => {
  await close?.()
  rmSync(dir, { recursive: true, force: true })
})

describe('mcp-auth tools and call on every HTTP transport', () => {
  it.each(['/mcp', '/sse', '/rest'])('%s: lists the tools and calls one', async (path) => {
    const store = join(dir, `${path.slice(1)}.json`)
    const tools = await runCli(['tools', `${origin}${path}`, '--no-browser', '--store', store])
    expect(tools.stderr).toBe('')
    expect(tools.code).toBe(0)
    expect(tools.stdout).toMatch(/^echo\b/m)
    const call = await runCli(['call', `${origin}${path}`, 'echo', JSON.stringify({ text: `over ${path}` }), '--no-browser', '--store', store])
    expect(call.stderr).toBe('')
    expect(call.code).toBe(0)
    expect(call.stdout).toContain(`over ${path}`)
  })
})
