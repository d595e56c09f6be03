/**
 * The walk-through of docs/protecting-mcp-servers.md as a test: `mcp-auth start` with
 * `--resource` for a second MCP server of one's own (examples/protected-server.mjs, the file the
 * docs show), the CLI logging in through Chromium and calling that server's tool, the demo server
 * still working; then the same with `mcp-auth resources add` on the stopped server instead of
 * `--resource`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/chromium.js'
import { cliLoginInChromium } from '../helpers/cli-browser-login.js'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'
import { REPO_ROOT } from '../helpers/paths.js'

const EXAMPLE = fileURLToPath(new URL('../../examples/protected-server.mjs', import.meta.url))
const DEMO = { username: 'demo', password: 'walk-through password' }

let browser: Browser
let dir: string
let asPort: number
let myPort: number
const children: ChildProcess[] = []

beforeAll(async () => {
  browser = await launchChromium()
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-walkthrough-'))
  asPort = await freePort()
  myPort = await freePort()
})
afterAll(async () => {
  for (const child of children) await stopChild(child)
  await browser?.close()
  await rm(dir, { recursive: true, force: true })
})

async function startMain(extra: string[] = []): Promise<{ child: ChildProcess; origin: string }> {
  const started = await startCli(['start', '--port', String(asPort), '--data-dir', join(dir, 'server'), ...extra], { env: { MCP_AUTH_DEMO_PASSWORD: DEMO.password } })
  children.push(started.child)
  return { child: started.child, origin: started.url }
}

/** examples/protected-server.mjs, trusting the authorization server at `issuer`. */
function startMyServer(issuer: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EXAMPLE], { env: { ...process.env, PORT: String(myPort), ISSUER: issuer }, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  return new Promise((resolve, reject) => {
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('listening on')) resolve(child)
    })
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => reject(new Error(`the example server exited with ${code}:\n${output}`)))
  })
}

describe('protecting a server of your own with the authorization server of mcp-auth start', () => {
  it('runs the server the walk-through shows: the docs print examples/protected-server.mjs as it is', async () => {
    const docs = await readFile(join(REPO_ROOT, 'docs', 'protecting-mcp-servers.md'), 'utf8')
    const shown = /is `examples\/protected-server\.mjs`:\n\n```js\n([\s\S]*?)```/.exec(docs)
    expect(shown?.[1]).toBe(await readFile(EXAMPLE, 'utf8'))
  })

  it('works with --resource: login through the browser names the server, and the call reaches it', async () => {
    const myUrl = `http://localhost:${myPort}/mcp`
    const main = await startMain(['--resource', myUrl])
    const mine = await startMyServer(main.origin)
    const store = join(dir, 'first.json')

    const login = await cliLoginInChromium(browser, myUrl, store, DEMO)
    expect(login.code, login.stderr).toBe(0)
    expect(login.consentText).toContain(myUrl)
    const call = await runCli(['call', myUrl, 'add', '{"a":2,"b":3}', '--no-browser', '--store', store])
    expect(call.stderr).toBe('')
    expect(call.stdout).toContain('5')

    // the demo server of `start` keeps working beside it
    const demoLogin = await cliLoginInChromium(browser, `${main.origin}/mcp`, store, DEMO)
    expect(demoLogin.code, demoLogin.stderr).toBe(0)
    const echo = await runCli(['call', `${main.origin}/mcp`, 'echo', '{"text":"still here"}', '--no-browser', '--store', store])
    expect(echo.stdout).toContain('still here')

    await stopChild(mine)
    await stopChild(main.child)
  })

  it('works with resources add on the stopped server, from the next start', async () => {
    const myUrl = `http://localhost:${myPort}/mcp`
    const add = await runCli(['resources', 'add', myUrl, '--name', 'My server', '--data-dir', join(dir, 'server')])
    expect(add.code, add.stderr).toBe(0)
    const main = await startMain()
    await startMyServer(main.origin)
    const store = join(dir, 'second.json')

    const login = await cliLoginInChromium(browser, myUrl, store, DEMO)
    expect(login.code, login.stderr).toBe(0)
    expect(login.consentText).toContain('My server')
    const call = await runCli(['call', myUrl, 'add', '{"a":20,"b":22}', '--no-browser', '--store', store])
    expect(call.stderr).toBe('')
    expect(call.stdout).toContain('42')
  })
})
