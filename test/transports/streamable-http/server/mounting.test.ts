/**
 * The same endpoint however it is mounted: the handler on plain node:http, the Koa app from
 * createMcpHttpApp, and the built CLI (`mcp-auth demo-server`), each over real HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI_PATH } from '../../../helpers/paths.js'
import { callTool, closeAll, getSse, initialize, post, readAnswer, startHandler, startKoaApp, type Harness } from './http-harness.js'

afterEach(closeAll)

/** A whole session: initialize, a tool call, the GET stream, DELETE, then 404. */
async function exerciseEndpoint(url: string): Promise<void> {
  const session = await initialize(url)
  const answer = await session.call(1, 'tools/call', { name: 'add', arguments: { a: 20, b: 22 } })
  expect(answer.result.structuredContent).toEqual({ sum: 42 })
  const standalone = await getSse(url, session.options)
  expect(standalone.response.status).toBe(200)
  standalone.abort()
  const deleted = await fetch(url, { method: 'DELETE', headers: { 'Mcp-Session-Id': session.id, 'MCP-Protocol-Version': session.version } })
  expect(deleted.status).toBe(200)
  expect((await post(url, callTool(2, 'echo', { text: 'x' }), session.options)).status).toBe(404)
}

describe('mounting the Streamable HTTP endpoint', () => {
  it('serves a whole session from the handler on a plain node:http server', async () => {
    const harness: Harness = await startHandler()
    await exerciseEndpoint(harness.url)
    expect(harness.handler.sessionCount).toBe(0)
  })

  it('serves a whole session from the Koa app at /mcp', async () => {
    const harness = await startKoaApp()
    await exerciseEndpoint(harness.url)
    expect(harness.app.streamable.sessionCount).toBe(0)
  })

  it('passes the Koa app options to the handler (JSON answers, stateless)', async () => {
    const json = await startKoaApp({ preferJsonResponse: true })
    const session = await initialize(json.url)
    const response = await post(json.url, callTool(1, 'echo', { text: 'j' }), session.options)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    await response.text()
    const stateless = await startKoaApp({ stateless: true })
    const answer = await readAnswer(await post(stateless.url, callTool(1, 'echo', { text: 's' }), { version: '2025-11-25' }))
    expect(answer[0]).toMatchObject({ id: 1, result: { content: [{ text: 's' }] } })
    expect((await fetch(stateless.url)).status).toBe(405)
  })

  it('leaves other paths of the Koa app to Koa (404), not to the MCP handler', async () => {
    const harness = await startKoaApp()
    const response = await fetch(harness.url.replace(/\/mcp$/, '/elsewhere'), { method: 'POST' })
    expect(response.status).toBe(404)
    await response.text()
  })

  it('applies the Host/Origin policy in the Koa app as well', async () => {
    const harness = await startKoaApp()
    const response = await post(harness.url, '{}', { headers: { Origin: 'https://evil.example' } })
    expect(response.status).toBe(403)
  })
})

describe('mcp-auth demo-server (built CLI)', () => {
  let child: ChildProcess | undefined

  afterEach(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    child = undefined
  })

  it('prints "listening on http://127.0.0.1:<port>" and serves /mcp there', async () => {
    child = spawn(process.execPath, [CLI_PATH, 'demo-server', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    const proc = child
    const base = await new Promise<string>((resolve, reject) => {
      let out = ''
      const timer = setTimeout(() => reject(new Error(`no "listening on" line; stdout: ${out}`)), 10_000)
      proc.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const match = /listening on (http:\/\/127\.0\.0\.1:(\d+))\n/.exec(out)
        if (match !== null) {
          clearTimeout(timer)
          resolve(match[1]!)
        }
      })
      proc.once('exit', (code) => reject(new Error(`demo-server exited with ${code} before listening; stdout: ${out}`)))
    })
    expect(Number(new URL(base).port)).toBeGreaterThan(0)
    await exerciseEndpoint(`${base}/mcp`)
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve))
    proc.kill('SIGTERM')
    expect(await exited).toBe(0)
  })
})
